// The service as a process: an orderly stop (SIGTERM) drains the requests in flight within a
// bounded grace, and a crash (SIGKILL) under a write load loses no acknowledged write and leaves
// nothing half-written (docs/operations.md).
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { CONNECTION_URL_FILE, EMBEDDED_POOL_SIZE } from '../../src/infrastructure/database/embedded/embedded-postgres';
import { createPrismaClient, type PrismaClient } from '../../src/infrastructure/database/driver/prisma-client';
import { expectKeptAnswersReplayed } from '../support/acknowledged-writes';
import { halfWrites } from '../support/consistency';
import { startTestApp } from '../support/http/test-app';
import { call, signUpThrough, startUpload, type Answer } from '../support/process-client';
import { startServiceProcess, type ServiceProcess } from '../support/service-process';
import { freeLoopbackPort } from '../support/free-port';
import { sumOf } from '../support/metrics/exposition';
import { provisionTestDatabase } from '../support/test-database';
import {
  anchorLane,
  clockLane,
  createdId,
  fastForwardLane,
  itemLane,
  journeyLane,
  WriteLoad,
  type LoadAccount,
  type WriteKind,
} from '../support/write-load';
import { within } from '../support/wait-for';

const onServer = Boolean(process.env.DATABASE_URL?.trim());
/** Limits off (the load is ours) and no request log to wade through. */
const QUIET = { LOG_LEVEL: 'silent', RATE_LIMIT_PER_SECOND: '0', RATE_LIMIT_ACCOUNTS_PER_MINUTE: '0' };
const HOUR = 3_600_000;
const MINUTE = 60_000;

interface Store {
  /** What a service process needs to use the store. */
  readonly env: Record<string, string>;
  /** A client on the store for the test's own reads; on the embedded database, only while a service process runs it. */
  connect(): Promise<{ prisma: PrismaClient; close(): Promise<void> }>;
  close(): Promise<void>;
}

/** A store for the processes of one test: a fresh database on the server, or a fresh embedded data folder. */
async function freshStore(): Promise<Store> {
  if (onServer) {
    const database = await provisionTestDatabase();
    return {
      env: { DATABASE_URL: database.connectionString },
      connect: async () => ({ prisma: database.prisma, close: async () => undefined }),
      close: () => database.close(),
    };
  }
  const folder = await mkdtemp(join(tmpdir(), 'tns-lifecycle-'));
  return {
    env: { DATA_DIR: folder },
    // The running service serves its embedded database on a port it writes down (embedded-postgres.ts).
    async connect() {
      const url = (await readFile(join(folder, CONNECTION_URL_FILE), 'utf8')).trim();
      const prisma = createPrismaClient(url, { maxConnections: EMBEDDED_POOL_SIZE });
      return { prisma, close: () => prisma.$disconnect() };
    },
    close: () => rm(folder, { recursive: true, force: true }),
  };
}

/** Ends a process the test may have left running (a failed assertion) without hiding the failure. */
async function ensureStopped(service: ServiceProcess | undefined): Promise<void> {
  await service?.kill('SIGKILL');
}

describe('SIGTERM', () => {
  it('lets the requests in flight finish with their answers, refuses new connections and exits 0', async () => {
    const store = await freshStore();
    let service: ServiceProcess | undefined;
    try {
      service = await startServiceProcess({ ...store.env, ...QUIET, SHUTDOWN_GRACE_MS: '120000' });
      const { url } = service;
      const me = await signUpThrough(url, 'drain');
      const paused = await call(url, 'POST', '/v1/pause-time', { auth: me.auth });
      expect(paused.status).toBe(200);

      // Writes of several kinds, each in the server's hands with half its body uploaded.
      const anchor = await startUpload(url, '/v1/anchors', {
        auth: me.auth,
        body: { description: 'Set while stopping' },
      });
      const item = await startUpload(url, '/v1/items', {
        auth: me.auth,
        body: { description: 'Found while stopping' },
        idempotencyKey: 'drain-item',
      });
      const timeline = await startUpload(url, '/v1/timelines', {
        auth: me.auth,
        body: { name: 'Drained', destination_time: '1969-07-20T20:17:40Z' },
      });
      const shift = await startUpload(url, '/v1/fast-forward', { auth: me.auth, body: { duration: '1h' } });
      // And a burst sent just before the signal: each is answered, or refused before it was read.
      const burst = Array.from({ length: 10 }, (_, n) =>
        call(url, 'POST', '/v1/anchors', { auth: me.auth, body: { description: `Burst ${n}` } }).then(
          (answer): Answer | 'not read' => answer,
          () => 'not read' as const,
        ),
      );

      const exited = service.kill('SIGTERM');
      await service.printed('no longer accepting connections');
      await expect(call(url, 'GET', '/healthz')).rejects.toMatchObject({ code: 'ECONNREFUSED' });

      for (const upload of [anchor, item, timeline, shift]) upload.finish();
      const [anchorAnswer, itemAnswer, timelineAnswer, shiftAnswer] = await Promise.all([
        anchor.answer,
        item.answer,
        timeline.answer,
        shift.answer,
      ]);
      expect(anchorAnswer).toMatchObject({ status: 201, body: { description: 'Set while stopping' } });
      expect(itemAnswer).toMatchObject({ status: 201, body: { item_description: 'Found while stopping' } });
      expect(timelineAnswer).toMatchObject({ status: 201, body: { name: 'Drained', status: 'open' } });
      expect(shiftAnswer).toMatchObject({ status: 200 });
      expect(Date.parse(shiftAnswer.body.new_time) - Date.parse(paused.body.paused_at)).toBe(HOUR);
      const burstAnswers = (await Promise.all(burst)).filter((answer) => answer !== 'not read');
      for (const answer of burstAnswers) expect(answer.status).toBe(201);

      expect(await exited).toEqual({ code: 0, signal: null });
      expect(service.output()).not.toContain('grace over');

      // Every acknowledged write is there for the next process.
      service = await startServiceProcess({ ...store.env, ...QUIET });
      const resumed = await call(service.url, 'POST', '/v1/resume-time', { auth: me.auth });
      expect(resumed.status).toBe(200);
      expect(resumed.body.current_time).toBe(shiftAnswer.body.new_time);
      expect((await call(service.url, 'GET', `/timeline/${timelineAnswer.body.id}`, { auth: me.auth })).body).toEqual(
        timelineAnswer.body,
      );
      const retried = await call(service.url, 'POST', '/v1/items', {
        auth: me.auth,
        body: { description: 'Found while stopping' },
        idempotencyKey: 'drain-item',
      });
      expect(retried).toMatchObject({ status: 201, body: itemAnswer.body, headers: { 'idempotent-replayed': 'true' } });
      const check = await call(service.url, 'POST', '/v1/paradox-checks', {
        auth: me.auth,
        body: { timeline_id: 'primary', proposed_changes: [{ item_id: itemAnswer.body.id }] },
      });
      expect(check.status).toBe(200);
      for (const answered of [anchorAnswer, ...burstAnswers]) {
        expect(
          (await call(service.url, 'POST', '/v1/return', { auth: me.auth, body: { anchor_id: answered.body.id } }))
            .status,
        ).toBe(200);
      }
      expect(await service.stop()).toBe(0);
    } finally {
      await ensureStopped(service);
      await store.close();
    }
  }, 180_000);

  it('stops cleanly on a SIGTERM sent the moment it says it listens', async () => {
    const store = await freshStore();
    try {
      const preload = join(__dirname, '../support/signal-on-listening.cjs');
      const started = await startServiceProcess({ ...store.env, ...QUIET, NODE_OPTIONS: `--require ${preload}` });
      expect(await started.exited).toEqual({ code: 0, signal: null });
      expect(started.output()).toContain('SIGTERM: no longer accepting connections');
    } finally {
      await store.close();
    }
  }, 120_000);

  it('closes a request that never finishes when the grace is over, and exits 0', async () => {
    const graceMs = 1_000;
    const store = await freshStore();
    let service: ServiceProcess | undefined;
    try {
      service = await startServiceProcess({ ...store.env, ...QUIET, SHUTDOWN_GRACE_MS: String(graceMs) });
      const me = await signUpThrough(service.url, 'stuck');
      const stuck = await startUpload(service.url, '/v1/anchors', {
        auth: me.auth,
        body: { description: 'Never finished' },
      });

      const signalled = Date.now();
      expect(await service.kill('SIGTERM')).toEqual({ code: 0, signal: null });
      const took = Date.now() - signalled;

      expect(service.output()).toContain('Shutdown grace over');
      await expect(stuck.answer).rejects.toThrow();
      // The bound under test: the client had its grace, and no more than the time to close the database.
      expect(took).toBeGreaterThanOrEqual(graceMs);
      expect(took).toBeLessThan(graceMs + 30_000);
    } finally {
      await ensureStopped(service);
      await store.close();
    }
  }, 120_000);
});

describe('the request log on standard output', () => {
  it('is written in a quiet moment without waiting for more lines, and to the end when the process stops', async () => {
    const store = await freshStore();
    let service: ServiceProcess | undefined;
    try {
      service = await startServiceProcess({ ...store.env, ...QUIET, LOG_LEVEL: 'info' });
      const first = await call(service.url, 'GET', '/healthz');
      // Lines are written in blocks; one alone must not wait for a block to fill.
      await within(service.printed(`"request_id":"${String(first.headers['x-request-id'])}"`), {
        what: "the lone request's log line",
      });

      const last = await call(service.url, 'GET', '/healthz');
      expect(await service.stop()).toBe(0);
      expect(await service.printed(`"request_id":"${String(last.headers['x-request-id'])}"`)).toContain('"status":200');
    } finally {
      await ensureStopped(service);
      await store.close();
    }
  }, 120_000);
});

describe('METRICS_PORT', () => {
  it('serves the process metrics on a listener of its own, on loopback, closed when the process stops', async () => {
    const store = await freshStore();
    let service: ServiceProcess | undefined;
    try {
      const metricsPort = await freeLoopbackPort();
      service = await startServiceProcess({ ...store.env, ...QUIET, METRICS_PORT: String(metricsPort) });
      await service.printed(`Metrics: http://127.0.0.1:${metricsPort}/metrics`);
      expect((await call(service.url, 'GET', '/healthz')).status).toBe(200);
      // Asks the database through the pool: it holds a connection when scraped.
      expect((await call(service.url, 'GET', '/readyz')).status).toBe(200);
      const scrape = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
      expect(scrape.status).toBe(200);
      const text = await scrape.text();
      expect(sumOf(text, 'http_server_request_duration_seconds_count', { http_route: '/healthz' })).toBeGreaterThan(0);
      // The service's own, read from its pool and its database's answers.
      expect(sumOf(text, 'tns_db_available')).toBe(1);
      expect(sumOf(text, 'db_client_connection_max')).toBeGreaterThan(0);
      // Idle or in use: the job queue's relay sends a statement every quarter second on the same
      // pool, and a scrape during one finds its only connection in use.
      expect(sumOf(text, 'db_client_connection_count')).toBeGreaterThan(0);
      expect(text).toMatch(/^db_client_connection_count\{[^}]*db_client_connection_state="idle"/m);
      // Each statement timed by its summary, and each wait for a connection.
      expect(sumOf(text, 'db_client_operation_duration_seconds_count')).toBeGreaterThan(0);
      expect(sumOf(text, 'db_client_connection_wait_time_seconds_count')).toBeGreaterThan(0);
      // The service analyses the embedded database's tables as they grow (PGlite never does), and only there.
      expect(text.includes('# TYPE tns_embedded_db_analyses_total counter')).toBe(!onServer);
      expect((await call(service.url, 'GET', '/metrics')).status).toBe(404);
      expect(await service.stop()).toBe(0);
      await expect(fetch(`http://127.0.0.1:${metricsPort}/metrics`)).rejects.toThrow();
    } finally {
      await ensureStopped(service);
      await store.close();
    }
  }, 120_000);
});

describe('SIGKILL in the middle of a write load', () => {
  // The check the crash test relies on must see a half-written write when there is one.
  it('is checked by rules that see a half-written write', async () => {
    const t = await startTestApp();
    try {
      const me = await t.signUp();
      const anchor = await request(t.app)
        .post('/v1/anchors')
        .set('Authorization', me.auth)
        .send({ description: 'Whole' })
        .expect(201);
      expect(await halfWrites(t.prisma, [me.id])).toEqual([]);
      await t.prisma.event.deleteMany({ where: { accountId: me.id, subjectId: anchor.body.id } });
      expect(await halfWrites(t.prisma, [me.id])).toEqual([`${me.id}: ${anchor.body.id} has 0 anchor_set events`]);
    } finally {
      await t.close();
    }
  });

  it('loses no acknowledged write and leaves nothing half-written', async () => {
    const store = await freshStore();
    const env = { ...store.env, ...QUIET };
    let service: ServiceProcess | undefined;
    let database: { prisma: PrismaClient; close(): Promise<void> } | undefined;
    try {
      service = await startServiceProcess(env);
      const { url } = service;
      const clock = await signUpThrough(url, 'crash-clock');
      const mixed = [
        await signUpThrough(url, 'crash-a'),
        await signUpThrough(url, 'crash-b'),
        await signUpThrough(url, 'crash-c'),
      ];
      expect((await call(url, 'POST', '/v1/pause-time', { auth: clock.auth })).status).toBe(200);
      database = await store.connect();
      const clockBefore = await storedClock(database.prisma, clock.id);
      await database.close();

      // 16 clients at once: four fast-forwarding one paused clock, four per other account.
      const load = new WriteLoad(() => url);
      const lanes = [
        ...[0, 1, 2, 3].map((lane) => fastForwardLane(load, clock, `ff-${lane}`, 400)),
        ...mixed.flatMap((account, n) => [
          anchorLane(load, account, `anchor-${n}`, 400),
          itemLane(load, account, `item-${n}`, 400),
          journeyLane(load, account, `journey-${n}`, 80),
          clockLane(load, account, `clock-${n}`, 100),
        ]),
      ];
      await load.acknowledged(300);
      expect(await service.kill('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });
      await Promise.all(lanes);
      // Up to the kill every write was acknowledged; after it, none was answered at all.
      expect(load.refused()).toEqual([]);
      expect(load.unanswered().length).toBeGreaterThan(0);

      service = await startServiceProcess(env);
      database = await store.connect();
      const accounts = [clock, ...mixed];
      expect(
        await halfWrites(
          database.prisma,
          accounts.map((account) => account.id),
        ),
      ).toEqual([]);

      // Every acknowledged write is there, and at most the writes in flight were added to them.
      const rows = {
        where: { accountId: { in: accounts.map((account) => account.id) } },
        select: { accountId: true, id: true },
      };
      const tables: { name: string; rows: { accountId: string; id: string }[]; kinds: WriteKind[] }[] = [
        { name: 'anchors', rows: await database.prisma.anchor.findMany(rows), kinds: ['anchor'] },
        { name: 'items', rows: await database.prisma.item.findMany(rows), kinds: ['item'] },
        { name: 'travels', rows: await database.prisma.travel.findMany(rows), kinds: ['travel', 'moment'] },
        {
          name: 'timelines',
          rows: (await database.prisma.timeline.findMany(rows)).filter((row) => row.id !== 'primary'),
          kinds: ['timeline'],
        },
      ];
      for (const account of accounts) {
        for (const table of tables) {
          const ids = table.rows.filter((row) => row.accountId === account.id).map((row) => row.id);
          const answered = table.kinds.flatMap((kind) => load.answered({ kind, accountId: account.id }).map(createdId));
          const inFlight = table.kinds.flatMap((kind) => load.unanswered({ kind, accountId: account.id })).length;
          expect({
            account: account.id,
            table: table.name,
            missing: answered.filter((id) => !ids.includes(id)),
          }).toEqual({ account: account.id, table: table.name, missing: [] });
          expect(ids.length).toBeGreaterThanOrEqual(answered.length);
          expect(ids.length).toBeLessThanOrEqual(answered.length + inFlight);
        }
      }

      // The paused clock moved by the acknowledged minutes, plus at most those in flight.
      const minutes = ((await storedClock(database.prisma, clock.id)) - clockBefore) / MINUTE;
      const acknowledgedMinutes = load.answered({ accountId: clock.id }).length;
      expect(Number.isInteger(minutes)).toBe(true);
      expect(minutes).toBeGreaterThanOrEqual(acknowledgedMinutes);
      expect(minutes).toBeLessThanOrEqual(acknowledgedMinutes + load.unanswered({ accountId: clock.id }).length);

      await expectReadableThroughTheApi(service, load, mixed);
      await expectKeptAnswersReplayed(service.url, load.answered(), [clock, ...mixed]);
      await expectInFlightKeysBothOrNeither(database.prisma, load, mixed);
      await expectRetriesOfInFlightKeysSafe(service, load, [clock, ...mixed]);
      expect(
        await halfWrites(
          database.prisma,
          accounts.map((account) => account.id),
        ),
      ).toEqual([]);

      // And the new process carries on with every account: whoever was away can come home.
      for (const account of mixed) {
        expect(
          (await call(service.url, 'POST', '/v1/travels', { auth: account.auth, body: { destination: 'primary' } }))
            .status,
        ).toBe(201);
        expect(
          (
            await call(service.url, 'POST', '/v1/anchors', {
              auth: account.auth,
              body: { description: 'After the crash' },
            })
          ).status,
        ).toBe(201);
      }
      await database.close();
      expect(await service.stop()).toBe(0);
    } finally {
      await database?.close();
      await ensureStopped(service);
      await store.close();
    }
  }, 240_000);
});

/** The paused clock's reading as stored, in epoch milliseconds. */
async function storedClock(prisma: PrismaClient, accountId: string): Promise<number> {
  const traveller = await prisma.traveller.findUniqueOrThrow({ where: { accountId } });
  expect(traveller.clockPaused).toBe(true);
  return traveller.clockReading.getTime();
}

/** Timelines read one by one, items all named in a paradox check (which refuses unknown ones). */
async function expectReadableThroughTheApi(
  service: ServiceProcess,
  load: WriteLoad,
  accounts: readonly LoadAccount[],
): Promise<void> {
  for (const account of accounts) {
    for (const write of load.answered({ kind: 'timeline', accountId: account.id })) {
      const read = await call(service.url, 'GET', `/timeline/${createdId(write)}`, { auth: account.auth });
      expect(read).toMatchObject({ status: 200, body: { id: createdId(write), name: write.answer.body.name } });
    }
    const itemIds = load.answered({ kind: 'item', accountId: account.id }).map(createdId);
    for (let start = 0; start < itemIds.length; start += 100) {
      const check = await call(service.url, 'POST', '/v1/paradox-checks', {
        auth: account.auth,
        body: {
          timeline_id: 'primary',
          proposed_changes: itemIds.slice(start, start + 100).map((id) => ({ item_id: id })),
        },
      });
      expect(check.status).toBe(200);
    }
  }
}

/** Each acknowledged write with an Idempotency-Key is answered again, word for word, and not repeated. */
/**
 * A keyed anchor or item in flight when the process died left its row and its kept answer, or
 * neither: the answer commits in the transaction of the write (each lane's descriptions are unique).
 */
async function expectInFlightKeysBothOrNeither(
  prisma: PrismaClient,
  load: WriteLoad,
  accounts: readonly LoadAccount[],
): Promise<void> {
  for (const account of accounts) {
    for (const write of load.unanswered({ accountId: account.id })) {
      const { idempotencyKey: key, body } = write;
      if (key === undefined || (write.kind !== 'anchor' && write.kind !== 'item')) continue;
      const description =
        typeof body === 'object' && body !== null && 'description' in body ? String(body.description) : '';
      const where = { where: { accountId: account.id, description } };
      const rows = write.kind === 'anchor' ? await prisma.anchor.count(where) : await prisma.item.count(where);
      const claim = await prisma.idempotencyKey.findUnique({
        where: { accountId_key: { accountId: account.id, key } },
      });
      const kept = claim?.responseStatus ?? null;
      // A kept success wrote its row; a kept refusal, or no kept answer, wrote nothing.
      expect({ key, kept, rows }).toEqual({ key, kept, rows: kept !== null && kept < 300 ? 1 : 0 });
    }
  }
}

/**
 * A write in flight when the process died, retried with its key: answered again if its answer was
 * kept with its writes, or done now if its statement never committed. Never a failure of the
 * service, and never a key left claimed without its answer.
 */
async function expectRetriesOfInFlightKeysSafe(
  service: ServiceProcess,
  load: WriteLoad,
  accounts: readonly LoadAccount[],
): Promise<void> {
  for (const account of accounts) {
    for (const write of load.unanswered({ accountId: account.id }).filter((keyed) => keyed.idempotencyKey)) {
      const retry = await call(service.url, 'POST', write.path, {
        auth: account.auth,
        body: write.body,
        idempotencyKey: write.idempotencyKey,
      });
      const outcome = retry.status < 300 ? 'answered' : `${retry.status} ${String(retry.body.code)}`;
      expect({ key: write.idempotencyKey, outcome }).toEqual({ key: write.idempotencyKey, outcome: 'answered' });
    }
  }
}
