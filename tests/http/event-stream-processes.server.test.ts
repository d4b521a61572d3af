// Event streams served by real service processes on one PostgreSQL server: two workers behind one
// port (a stream hears what the other worker writes, and resumes on either after a dropped
// connection), the shutdown, and a database outage. Needs DATABASE_URL (several processes).
import { request as httpRequest } from 'node:http';
import { call, signUpThrough } from '../support/process-client';
import { openStream } from '../support/http/event-stream-client';
import { startServiceProcess, type ServiceProcess } from '../support/service-process';
import { proxyInFrontOf, startTcpProxy, type TcpProxy } from '../support/tcp-proxy';
import { provisionTestDatabase, type TestDatabase } from '../support/test-database';
import { waitFor } from '../support/wait-for';

const QUIET = { LOG_LEVEL: 'info', RATE_LIMIT_PER_SECOND: '0', RATE_LIMIT_ACCOUNTS_PER_MINUTE: '0' };
const PLACE = 'Globe Theatre';
const QUERY = `location=${encodeURIComponent(PLACE)}&time_range=1600-01-01T00:00:00Z/1600-01-02T00:00:00Z`;

/** A stream read without a client that reconnects: resolves with its status; `ended` once the server ends it. */
function rawStream(url: string, auth: string): Promise<{ status: number; ended: Promise<void>; body(): string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers: { Accept: 'text/event-stream', Authorization: auth } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      const ended = new Promise<void>((settle) => res.once('close', () => settle()));
      resolve({ status: res.statusCode ?? 0, ended, body: () => body });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('event streams across service processes', () => {
  let database: TestDatabase;
  let service: ServiceProcess | undefined;
  const closers: Array<() => unknown> = [];

  beforeEach(async () => {
    database = await provisionTestDatabase();
  });
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    await service?.kill('SIGKILL');
    service = undefined;
    await database.close();
  });

  it('delivers every event to streams on both workers, in order, once, across dropped connections', async () => {
    service = await startServiceProcess({ DATABASE_URL: database.connectionString, WEB_CONCURRENCY: '2', ...QUIET });
    await service.printed(/Workers: 2 processes/);
    const a = await signUpThrough(service.url, 'streams');
    expect((await call(service.url, 'POST', '/v1/pause-time', { auth: a.auth })).status).toBe(200);
    // The streams go through a proxy the test can cut; the writes go straight to the service.
    const proxy: TcpProxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(service.url).port) });
    closers.push(() => proxy.close());
    const streams = Array.from({ length: 4 }, () =>
      openStream(`http://127.0.0.1:${proxy.port}/v1/monitor-events?${QUERY}`, a.auth),
    );
    closers.push(() => streams.forEach((stream) => stream.close()));
    await Promise.all(streams.map((stream) => stream.waitFor(1)));

    const times = Array.from({ length: 10 }, (_, i) => `1600-01-01T${String(i + 1).padStart(2, '0')}:00:00Z`);
    for (const [index, time] of times.entries()) {
      if (index === 5) {
        // Every stream's connection is cut: each client reconnects (after the retry the service
        // asked for) with its Last-Event-ID, to whichever worker takes the connection.
        await proxy.stop();
        await proxy.start();
      }
      const answer = await call(service.url, 'POST', '/api/v1/travel', {
        auth: a.auth,
        body: { destination_time: time, location: PLACE },
      });
      expect(answer.status).toBe(200);
    }
    for (const stream of streams) {
      await waitFor(() => stream.received.filter((message) => message.type === 'recorded').length >= 10 || undefined, {
        timeoutMs: 15_000,
        what: 'ten events on every stream',
      });
      const recorded = stream.received.filter((message) => message.type === 'recorded');
      expect(recorded.map((message) => message.data.time)).toEqual(times);
      expect(stream.opened).toBe(2);
    }
    streams.forEach((stream) => stream.close());
    // Both workers held streams: the request log names the process of each ended stream.
    const pids = await waitFor(
      () => {
        const ended = service?.output().match(/"pid":\d+[^\n]*"path":"\/v1\/monitor-events"[^\n]*event stream ended/g);
        const found = new Set((ended ?? []).map((line) => /"pid":(\d+)/.exec(line)?.[1]));
        return found.size >= 2 ? found : undefined;
      },
      { timeoutMs: 5_000, what: 'stream log lines of both workers' },
    );
    expect(pids.size).toBe(2);
    // Each says where its client came from, though the client had gone when it was written.
    const lines = service.output().match(/[^\n]*"path":"\/v1\/monitor-events"[^\n]*event stream ended/g) ?? [];
    expect(lines.length).toBeGreaterThanOrEqual(pids.size);
    expect(lines.every((line) => line.includes('"remoteAddress":"127.0.0.1"'))).toBe(true);
  }, 90_000);

  it('ends its streams at SIGTERM and exits within the grace', async () => {
    service = await startServiceProcess({
      DATABASE_URL: database.connectionString,
      SHUTDOWN_GRACE_MS: '30000',
      ...QUIET,
    });
    const a = await signUpThrough(service.url, 'shutdown');
    const stream = await rawStream(`${service.url}/v1/monitor-events?${QUERY}`, a.auth);
    expect(stream.status).toBe(200);
    // Streaming, not still opening: the signal ends a stream in the middle of its life.
    await waitFor(() => stream.body().includes('event: caught-up'), { what: 'the stream to catch up' });
    const started = Date.now();
    const stopped = service.stop();
    await stream.ended;
    expect(await stopped).toBe(0);
    // Far sooner than the 30 s grace: the stream did not hold the shutdown.
    expect(Date.now() - started).toBeLessThan(10_000);
    service = undefined;
  }, 60_000);

  it('ends its streams when the database is lost, refuses new ones until it is back, then serves them', async () => {
    const { proxy, url } = await proxyInFrontOf(database.connectionString);
    closers.push(() => proxy.close());
    service = await startServiceProcess({ DATABASE_URL: url, ...QUIET });
    await service.printed('Time Navigation Service listening');
    const a = await signUpThrough(service.url, 'outage');
    const stream = await rawStream(`${service.url}/v1/monitor-events?${QUERY}`, a.auth);
    expect(stream.status).toBe(200);

    await proxy.stop();
    await stream.ended;
    await service.printed('Event streams ended and refused: the connection listening for event changes was lost');
    const refused = await rawStream(`${service.url}/v1/monitor-events?${QUERY}`, a.auth);
    expect(refused.status).toBe(503);

    await proxy.start();
    await service.printed('Event streams open again: listening for event changes');
    const again = await rawStream(`${service.url}/v1/monitor-events?${QUERY}`, a.auth);
    expect(again.status).toBe(200);
    await service.stop();
    service = undefined;
  }, 90_000);
});
