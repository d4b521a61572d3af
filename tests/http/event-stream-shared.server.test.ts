// Two service instances on one PostgreSQL database, as two processes behind a proxy: an API key's
// event streams are counted on both together (EVENT_STREAMS_PER_ACCOUNT), and a stream closed on one
// frees its slot for the other. Needs DATABASE_URL (two pools on one database).
import { request as httpRequest } from 'node:http';
import { serveOnLoopback } from '../support/http/event-stream-client';
import { startTestApp, type TestApp } from '../support/http/test-app';
import { waitFor } from '../support/wait-for';

const LIMITS = { perProcess: 10, perAccount: 2, heartbeatMs: 1_000, retryMs: 100 };
const QUERY = 'location=Here&time_range=1600-01-01T00:00:00Z/1600-01-02T00:00:00Z';

function open(url: string, auth: string): Promise<{ status: number; close(): void }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${url}/v1/monitor-events?${QUERY}`,
      { headers: { Accept: 'text/event-stream', Authorization: auth } },
      (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, close: () => req.destroy() });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('event streams of one key on two processes', () => {
  let a: TestApp;
  let b: TestApp;
  let servedA: Awaited<ReturnType<typeof serveOnLoopback>>;
  let servedB: Awaited<ReturnType<typeof serveOnLoopback>>;

  beforeAll(async () => {
    a = await startTestApp({ eventStreams: LIMITS });
    b = await startTestApp({ eventStreams: LIMITS, sharing: a });
    servedA = await serveOnLoopback(a.app);
    servedB = await serveOnLoopback(b.app);
  });
  afterAll(async () => {
    await servedA?.close();
    await servedB?.close();
    await b?.close();
    await a?.close();
  });

  it('counts the key on both together, and frees a slot on one when a stream closes on the other', async () => {
    const account = await a.signUp();
    const onA = await open(servedA.url, account.auth);
    const onB = await open(servedB.url, account.auth);
    const over = [await open(servedA.url, account.auth), await open(servedB.url, account.auth)];
    try {
      expect([onA.status, onB.status]).toEqual([200, 200]);
      expect(over.map((stream) => stream.status)).toEqual([429, 429]);
      onA.close();
      await waitFor(() => a.eventStreams.size === 0, { what: 'the stream on A to close' });
      const again = await waitFor(
        async () => {
          const stream = await open(servedB.url, account.auth);
          if (stream.status === 200) return stream;
          stream.close();
          return undefined;
        },
        { what: 'the slot A gave back to be taken on B', intervalMs: 50 },
      );
      again.close();
    } finally {
      [onA, onB, ...over].forEach((stream) => stream.close());
    }
  });
});
