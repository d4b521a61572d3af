// WEB_CONCURRENCY: worker processes of one host serving one port, on one PostgreSQL database
// (docs/operations.md). Each test starts the real service as a process; which worker answered a
// request is read from the request log, whose JSON lines carry the pid of the process that wrote them.
import { createServer, type Server } from 'node:net';
import { call, signUpThrough, startUpload } from '../support/process-client';
import { runServiceToExit, startServiceProcess, type ServiceProcess } from '../support/service-process';
import { holdWrites } from '../support/hold-writes';
import { freeLoopbackPort } from '../support/free-port';
import { sumOf } from '../support/metrics/exposition';
import { serverOnly } from '../support/server-only';
import { provisionTestDatabase, type TestDatabase } from '../support/test-database';
import { waitFor } from '../support/wait-for';

/** The request log on (it says which worker answered), the limits off (the load is ours). */
const LOGGED = { LOG_LEVEL: 'info', RATE_LIMIT_PER_SECOND: '0', RATE_LIMIT_ACCOUNTS_PER_MINUTE: '0' };

it('refuses more than one worker on the embedded database at start, saying why', async () => {
  const run = await runServiceToExit({ DATABASE_URL: '', WEB_CONCURRENCY: '2' });
  expect(run.code).toBe(1);
  expect(run.output).toContain(
    'WEB_CONCURRENCY=2 needs DATABASE_URL: the embedded database (PGlite) can only be used by one process.',
  );
  expect(run.output).not.toContain('listening on');
}, 60_000);

// Two processes need a PostgreSQL server (CI sets DATABASE_URL); the embedded database is one process's.
serverOnly(() =>
  describe('WEB_CONCURRENCY=2 on a PostgreSQL server', () => {
    let database: TestDatabase;
    let service: ServiceProcess | undefined;

    beforeEach(async () => {
      database = await provisionTestDatabase();
    });

    afterEach(async () => {
      // Ends a primary a failed assertion left running; its workers leave with it.
      await service?.kill('SIGKILL');
      service = undefined;
      await database.close();
    });

    const start = async (env: Record<string, string> = {}) => {
      service = await startServiceProcess({
        DATABASE_URL: database.connectionString,
        WEB_CONCURRENCY: '2',
        ...LOGGED,
        ...env,
      });
      return { service, workers: await announcedWorkers(service) };
    };

    it('refuses to start when its processes would open more connections than PostgreSQL allows', async () => {
      const limit = await database.prisma.$queryRaw<Array<{ allowed: number }>>`
        SELECT (current_setting('max_connections')::int - current_setting('superuser_reserved_connections')::int
          - coalesce(current_setting('reserved_connections', true), '0')::int) AS allowed`;
      const { allowed } = limit[0];
      const run = await runServiceToExit({
        DATABASE_URL: database.connectionString,
        WEB_CONCURRENCY: '2',
        SERVICE_REPLICAS: '3',
        DATABASE_POOL_SIZE: String(allowed),
      });
      expect(run.code).toBe(1);
      const total = 6 * allowed + 6 * 1 + 6 * 2 + 3 * 1;
      const server = new URL(database.connectionString).host;
      expect(run.output).toContain(`The service would open up to ${total} connections to PostgreSQL at ${server}/`);
      expect(run.output).toContain(
        `6 processes × ${allowed} pool connections (${6 * allowed}) + 6 processes × 1 job queue (6) + ` +
          '6 processes × 2 listening (12) + 1 per instance while it migrates at start (3).',
      );
      expect(run.output).toMatch(/Set DATABASE_POOL_SIZE=\d+ or less, fewer WEB_CONCURRENCY or SERVICE_REPLICAS/);
      expect(run.output).not.toContain('listening on');
    }, 60_000);

    it('serves one port from two worker processes, announced once when both listen', async () => {
      const { service, workers } = await start();
      expect(workers).toHaveLength(2);
      expect(new Set(workers).size).toBe(2);
      expect(workers).not.toContain(service.pid);
      expect(service.output().match(/listening on/g)).toHaveLength(1);
      expect(service.output()).toContain('Data: PostgreSQL at');
      expect(service.output()).toContain('each with up to 10 database connections');
      // 2 × 10 pooled + 2 × 1 of the job queue + 2 × 2 listening + 1 while migrating, against the
      // server's own limit. Printed right after, perhaps in a later chunk of the output.
      await service.printed(/Database connections: up to 27 of the \d+ PostgreSQL allows \(SERVICE_REPLICAS=1\)/);

      // New connections are handed to the workers in turn: both answer, from one database.
      const me = await signUpThrough(service.url, 'workers');
      for (let n = 0; n < 8; n += 1) {
        expect(
          (await call(service.url, 'POST', '/v1/anchors', { auth: me.auth, body: { description: `Anchor ${n}` } }))
            .status,
        ).toBe(201);
      }
      for (const pid of workers) await service.printed(requestLine(pid, '/v1/anchors'));
      expect(servedBy(service.output(), '/v1/anchors')).toEqual(new Set(workers));

      expect(await service.stop()).toBe(0);
    }, 180_000);

    it('applies the HTTP timeouts in every worker: an upload that stalls is answered 408 by each', async () => {
      const { service, workers } = await start({ HTTP_REQUEST_TIMEOUT_MS: '1000', HTTP_HEADERS_TIMEOUT_MS: '1000' });
      const me = await signUpThrough(service.url, 'slow');
      // One connection each, handed to the workers in turn; half a body, then nothing.
      const uploads = [];
      for (let n = 0; n < 2; n += 1)
        uploads.push(
          await startUpload(service.url, '/v1/anchors', { auth: me.auth, body: { description: `Slow ${n}` } }),
        );
      const answers = await Promise.all(uploads.map((upload) => upload.answer));
      expect(answers.map((answer) => [answer.status, answer.body])).toEqual(
        Array.from({ length: 2 }, () => [408, expect.objectContaining({ code: 'request_timeout' })]),
      );
      for (const pid of workers)
        await service.printed(
          new RegExp(`"pid":${pid},[^\\n]*"path":"/v1/anchors"[^\\n]*"status":408[^\\n]*"msg":"request refused"`),
        );
      expect(await database.prisma.anchor.count()).toBe(0);
      expect(await service.stop()).toBe(0);
    }, 180_000);

    it('replaces a SIGKILLed worker, keeps answering meanwhile, and backs off when it happens again', async () => {
      const { service, workers } = await start();
      const [killed, survivor] = workers;
      process.kill(killed, 'SIGKILL');
      await service.printed(exitLine(killed, 250));
      expect(alive(killed)).toBe(false);

      // Out of the rotation once it is gone: the survivor answers every request.
      for (let n = 0; n < 6; n += 1) expect((await call(service.url, 'GET', '/healthz')).status).toBe(200);

      const text = await service.printed(/("msg":"worker listening"[^\n]*\n[\s\S]*){3}/);
      const replacement = [...text.matchAll(/"worker_pid":(\d+),"slot":\d+,"msg":"worker listening"/g)].map((match) =>
        Number(match[1]),
      )[2];
      expect(workers).not.toContain(replacement);
      expect(alive(replacement)).toBe(true);

      // The replacement serves on the same port, beside the survivor.
      const me = await signUpThrough(service.url, 'replaced');
      for (let n = 0; n < 8; n += 1) {
        expect(
          (await call(service.url, 'POST', '/v1/anchors', { auth: me.auth, body: { description: `Anchor ${n}` } }))
            .status,
        ).toBe(201);
      }
      for (const pid of [survivor, replacement]) await service.printed(requestLine(pid, '/v1/anchors'));
      expect(servedBy(service.output(), '/v1/anchors')).toEqual(new Set([survivor, replacement]));

      // A worker of that slot dying again soon after its start waits twice as long: a crash loop backs off.
      process.kill(replacement, 'SIGKILL');
      await service.printed(exitLine(replacement, 500));
      await service.printed(/("msg":"worker listening"[^\n]*\n[\s\S]*){4}/);
      for (let n = 0; n < 4; n += 1) expect((await call(service.url, 'GET', '/healthz')).status).toBe(200);
      expect(service.output().match(/listening on/g)).toHaveLength(1);

      expect(await service.stop()).toBe(0);
    }, 180_000);

    it('on SIGTERM, lets every worker finish its requests in flight, then exits 0 with no worker left', async () => {
      const { service, workers } = await start({ SHUTDOWN_GRACE_MS: '120000' });
      const me = await signUpThrough(service.url, 'drain');
      // Four writes with half their bodies uploaded: handed out in turn, two to each worker.
      const uploads = [];
      for (let n = 0; n < 4; n += 1)
        uploads.push(
          await startUpload(service.url, '/v1/anchors', { auth: me.auth, body: { description: `In flight ${n}` } }),
        );

      const exited = service.kill('SIGTERM');
      await service.printed('no longer accepting connections');
      await expect(call(service.url, 'GET', '/healthz')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
      expect(workers.every(alive)).toBe(true);

      for (const upload of uploads) upload.finish();
      const answers = await Promise.all(uploads.map((upload) => upload.answer));
      answers.forEach((answer, n) =>
        expect(answer).toMatchObject({ status: 201, body: { description: `In flight ${n}` } }),
      );
      expect(await exited).toEqual({ code: 0, signal: null });
      expect(workers.filter(alive)).toEqual([]);
      expect(servedBy(service.output(), '/v1/anchors')).toEqual(new Set(workers));
      expect(service.output()).not.toContain('grace over');
      expect(service.output()).not.toContain('restarting');
    }, 180_000);

    it("counts an account's requests in flight over both workers: the limit is the instance's", async () => {
      const { service, workers } = await start({ ACCOUNT_REQUESTS_RUNNING: '1', ACCOUNT_REQUESTS_QUEUED: '1' });
      const me = await signUpThrough(service.url, 'in-flight');
      // The account's writes wait for its traveller, locked here, so that its requests stay in flight.
      const release = await holdWrites(database.prisma, me.id);
      // Four connections, handed to the two workers in turn: counted per worker, each would run one
      // and queue one, and none would be refused.
      const sent = Array.from({ length: 4 }, (_, n) =>
        call(service.url, 'POST', '/v1/anchors', { auth: me.auth, body: { description: `Held ${n}` } }),
      );
      // Two are refused at once; the two that run or wait answer only once the lock is released.
      const answered: Array<Awaited<(typeof sent)[number]>> = [];
      for (const answer of sent)
        void answer.then(
          (each) => answered.push(each),
          () => undefined,
        );
      await waitFor(() => answered.length >= 2, { what: 'two answers while the writes are held' });
      expect(answered.map((answer) => answer.status)).toEqual([429, 429]);
      for (const answer of answered) expect(answer.body).toMatchObject({ code: 'too_many_requests_in_flight' });
      await release();
      expect((await Promise.all(sent)).map((answer) => answer.status).sort()).toEqual([201, 201, 429, 429]);
      // Both workers had the account's requests.
      for (const pid of workers) await service.printed(requestLine(pid, '/v1/anchors'));
      expect(await service.stop()).toBe(0);
    }, 180_000);

    it('serves one scrape of every worker on METRICS_PORT, whose counts add up exactly', async () => {
      const metricsPort = await freeLoopbackPort();
      const { service, workers } = await start({ METRICS_PORT: String(metricsPort) });
      await service.printed(`Metrics: http://127.0.0.1:${metricsPort}/metrics`);
      const scrape = async () => (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      const healthz = { http_route: '/healthz', http_response_status_code: '200' };
      const before = sumOf(await scrape(), 'http_server_request_duration_seconds_count', healthz);
      // Each on a connection of its own: the workers take them in turn.
      for (let n = 0; n < 20; n += 1) expect((await call(service.url, 'GET', '/healthz')).status).toBe(200);
      const after = await scrape();
      expect(sumOf(after, 'http_server_request_duration_seconds_count', healthz) - before).toBe(20);
      // Each worker's series apart, by its slot: a replaced worker's counts start a series again.
      for (const worker of ['0', '1'])
        expect(sumOf(after, 'http_server_request_duration_seconds_count', { ...healthz, worker })).toBeGreaterThan(0);
      // The primary's own process, beside its workers.
      expect(sumOf(after, 'process_resident_memory_bytes', { worker: 'primary' })).toBeGreaterThan(0);
      for (const pid of workers) await service.printed(requestLine(pid, '/healthz'));
      // The public port has no metrics.
      expect((await call(service.url, 'GET', '/metrics')).status).toBe(404);
      expect(await service.stop()).toBe(0);
    }, 120_000);

    it("counts failed API keys over both workers: together they allow the instance's limit", async () => {
      const { service } = await start({ API_KEY_FAILURES_PER_MINUTE: '6' });
      // Sequential, each on a connection of its own: the workers take them in turn. Counted per
      // worker at the whole limit, 12 would be looked up; each counts its share, 3.
      const answers = [];
      for (let n = 0; n < 20; n += 1)
        answers.push(
          await call(service.url, 'GET', '/timelines', { auth: `Bearer tns_${String(n).padStart(43, 'W')}` }),
        );
      const statuses = answers.map((answer) => answer.status);
      expect(statuses.filter((status) => status === 401)).toHaveLength(6);
      expect(statuses.filter((status) => status === 429)).toHaveLength(14);
      for (const answer of answers.filter((each) => each.status === 429)) {
        expect(answer.body).toMatchObject({ code: 'too_many_failed_attempts' });
        expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
      }
      expect(await service.stop()).toBe(0);
    }, 120_000);

    it.each([
      // The process (a worker, when there are several) that fails names what failed to start.
      ['PORT', '1', /starting HTTP listener failed: listen EADDRINUSE/],
      // A worker's listening socket is bound by its primary.
      ['PORT', '2', /starting HTTP listener failed: bind EADDRINUSE/],
      ['METRICS_PORT', '1', /starting metrics listener failed: listen EADDRINUSE/],
      ['METRICS_PORT', '2', /The metrics listener could not start: Error: listen EADDRINUSE/],
    ])(
      'exits 1 when its %s is taken (WEB_CONCURRENCY=%s), never saying it listens',
      async (setting, workers, why) => {
        const taken = await occupyPort();
        try {
          const run = await runServiceToExit({
            DATABASE_URL: database.connectionString,
            WEB_CONCURRENCY: workers,
            [setting]: String(taken.port),
            ...LOGGED,
          });
          expect(run.code).toBe(1);
          expect(run.output).toMatch(why);
          expect(run.output).not.toContain('listening on');
        } finally {
          await new Promise((resolve) => taken.server.close(resolve));
        }
      },
      120_000,
    );
  }),
);

/** The worker pids of the primary's "Workers: ..." line, printed with the "listening on" line. */
async function announcedWorkers(service: ServiceProcess): Promise<number[]> {
  const text = await service.printed(/Workers: \d+ processes \(pids [\d, ]+\)/);
  const pids = /Workers: \d+ processes \(pids ([\d, ]+)\)/.exec(text)?.[1] ?? '';
  return pids.split(', ').map(Number);
}

/** The primary's log line of a worker's unexpected exit by SIGKILL, and the wait before its restart. */
function exitLine(pid: number, restartInMs: number): RegExp {
  return new RegExp(
    `"worker_pid":${pid},[^\\n]*"signal":"SIGKILL","restart_in_ms":${restartInMs},"msg":"worker exited ` +
      'unexpectedly; restarting it"',
  );
}

/** The request log line of a request to `path` answered by the process `pid`. */
function requestLine(pid: number, path: string): RegExp {
  return new RegExp(`"pid":${pid},[^\\n]*"path":"${path}"[^\\n]*"msg":"request completed"`);
}

/** The pids of the processes whose request log lines answer requests to `path`. */
function servedBy(output: string, path: string): Set<number> {
  const pids = new Set<number>();
  for (const line of output.split('\n')) {
    // Only whole log lines: the last one may still be arriving.
    if (!line.startsWith('{') || !line.endsWith('}')) continue;
    const entry = JSON.parse(line) as { pid?: number; msg?: string; req?: { path?: string } };
    if (entry.msg === 'request completed' && entry.req?.path === path && entry.pid !== undefined) pids.add(entry.pid);
  }
  return pids;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false; // ESRCH: no such process
  }
}

/** Runs the service as startServiceProcess does, for a start that must fail: its exit code and output. */
function occupyPort(): Promise<{ server: Server; port: number }> {
  const server = createServer();
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve({ server, port: typeof address === 'object' && address ? address.port : 0 });
    });
  });
}
