// Event streams through the shipped nginx config (deploy/nginx/time-navigation-service.conf.template):
// each message reaches the client as the service writes it (nginx buffers a proxied answer unless
// the answer says X-Accel-Buffering: no), heartbeats keep an idle stream open, and Last-Event-ID
// reaches the service.
import { request as httpsRequest } from 'node:https';
import { startTestApp, type TestApp } from '../support/http/test-app';
import { behindNginx, type BehindNginx } from '../support/reverse-proxy/behind-nginx';
import { waitFor } from '../support/wait-for';

jest.setTimeout(60_000);

const PLACE = 'Globe Theatre';
const QUERY = `location=${encodeURIComponent(PLACE)}&time_range=1600-01-01T00:00:00Z/1600-01-02T00:00:00Z`;
const HEARTBEAT_MS = 1_000;

interface TlsStream {
  readonly status: number;
  readonly headers: Record<string, unknown>;
  /** What arrived so far. */
  text(): string;
  close(): void;
}

/** A stream read over nginx's TLS listener as bytes arrive. */
function streamThrough(proxy: BehindNginx, headers: Record<string, string>): Promise<TlsStream> {
  return new Promise((resolve, reject) => {
    let text = '';
    const req = httpsRequest(
      {
        host: '127.0.0.1',
        port: proxy.nginx.port,
        path: `/v1/monitor-events?${QUERY}`,
        headers: { Accept: 'text/event-stream', ...headers },
        ca: proxy.nginx.certificate,
        agent: false,
      },
      (res) => {
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: () => text, close: () => req.destroy() });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('event streams behind nginx', () => {
  let t: TestApp;
  let proxy: BehindNginx;

  beforeAll(async () => {
    t = await startTestApp({
      trustProxy: 1,
      eventStreams: { perProcess: 10, perAccount: 5, heartbeatMs: HEARTBEAT_MS, retryMs: 500 },
    });
    proxy = await behindNginx(t.app);
  });
  afterAll(async () => {
    await proxy?.close();
    await t?.close();
  });

  it('passes each message on as it is written, heartbeats included, and Last-Event-ID back', async () => {
    const a = await t.signUp();
    await proxy.client({ method: 'POST', path: '/v1/pause-time', headers: { Authorization: a.auth } });
    const stream = await streamThrough(proxy, { Authorization: a.auth });
    try {
      expect(stream.status).toBe(200);
      expect(stream.headers['content-type']).toBe('text/event-stream; charset=utf-8');
      await waitFor(() => stream.text().includes('event: caught-up\n'), { what: 'caught-up through nginx' });

      const travelled = await proxy.client({
        method: 'POST',
        path: '/api/v1/travel',
        headers: { Authorization: a.auth },
        body: { destination_time: '1600-01-01T02:00:00Z', location: PLACE },
      });
      expect(travelled.status).toBe(200);
      // Unbuffered: the event follows the write's answer, the stream still open. Buffered, it would
      // wait for kilobytes more, while heartbeats bring 13 bytes a second.
      const event = await waitFor(() => /id: (\S+)\nevent: recorded\ndata: (.*)\n\n/.exec(stream.text()), {
        what: 'the new event through nginx',
      });
      expect(JSON.parse(event[2] ?? '{}')).toMatchObject({ time: '1600-01-01T02:00:00Z', location: PLACE });
      await waitFor(() => stream.text().includes(': heartbeat\n\n'), {
        what: 'a heartbeat through nginx',
        timeoutMs: HEARTBEAT_MS * 3,
      });

      // A client that resumes from that event's id gets what came after it, through nginx too.
      await proxy.client({
        method: 'POST',
        path: '/api/v1/travel',
        headers: { Authorization: a.auth },
        body: { destination_time: '1600-01-01T03:00:00Z', location: PLACE },
      });
      const resumed = await streamThrough(proxy, { Authorization: a.auth, 'Last-Event-ID': event[1] ?? '' });
      try {
        await waitFor(() => resumed.text().includes('event: caught-up\n'), { what: 'the resumed stream' });
        const times = [...resumed.text().matchAll(/"time":"([^"]+)"/g)].map((match) => match[1]);
        expect(times).toEqual(['1600-01-01T03:00:00Z']);
      } finally {
        resumed.close();
      }
    } finally {
      stream.close();
    }
  });
});
