import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import request from 'supertest';
import { buildContainer } from '../../src/composition/container';
import { DatabaseAvailability } from '../../src/infrastructure/database/health/database-availability';
import { EMBEDDED_POOL_SIZE } from '../../src/infrastructure/database/embedded/embedded-postgres';
import { createDatabaseClients, type PrismaClient } from '../../src/infrastructure/database/driver/prisma-client';
import { LruVerifiedKeyCache } from '../../src/infrastructure/api-key-cache/lru-verified-key-cache';
import { databaseReadiness } from '../../src/infrastructure/database/health/readiness';
import { databaseFailureOf } from '../../src/infrastructure/database/driver/database-failures';
import { createApp } from '../../src/interfaces/http/app';
import { proxyInFrontOf, type TcpProxy } from '../support/tcp-proxy';
import { provisionTestDatabase, type TestDatabase } from '../support/test-database';
import { waitFor } from '../support/wait-for';

// The database goes away during a run (a TCP proxy in front of it is stopped) and comes back.
describe('when the database is down', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let prisma: PrismaClient;
  let app: ReturnType<typeof createApp>;
  const errors: unknown[] = [];

  beforeAll(async () => {
    database = await provisionTestDatabase();
    let url: string;
    ({ proxy, url } = await proxyInFrontOf(database.connectionString));
    const clients = createDatabaseClients(url, process.env.DATABASE_URL ? {} : { maxConnections: EMBEDDED_POOL_SIZE });
    prisma = clients.prisma;
    // Keys verified before the outage stay verified in memory, as in the service: requests get past
    // authentication and fail where they first need the database (for a keyed one, its key).
    const verifiedKeyCache = new LruVerifiedKeyCache({ maxEntries: 10 });
    app = createApp(buildContainer({ prisma, sql: clients.sql, verifiedKeyCache }), {
      formSecret: randomBytes(32).toString('base64url'),
      readiness: databaseReadiness(prisma),
      databaseFailureOf,
      logError: (error) => errors.push(error),
    });
  });

  afterAll(async () => {
    await prisma.$disconnect();
    await proxy.close();
    await database.close();
  });

  it('answers 503 + Retry-After fast, keeps no keyed answer, fails /readyz, stays up, recovers by itself', async () => {
    const signUp = await request(app)
      .post('/v1/accounts')
      .send({ email: `outage-${Date.now()}@example.com`, password: 'correct horse battery' });
    expect(signUp.status).toBe(201);
    const auth = `Bearer ${signUp.body.api_key}`;
    expect((await request(app).get('/readyz')).status).toBe(200);
    // The key is now verified in memory.
    expect((await request(app).get('/timelines').set('Authorization', auth)).status).toBe(200);

    await proxy.stop();
    const started = Date.now();
    const down = await request(app).post('/v1/anchors').set('Authorization', auth).send({ description: 'While down' });
    expect(down.status).toBe(503);
    expect(down.headers['retry-after']).toBe('5');
    expect(down.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(down.body).toMatchObject({ status: 503, code: 'service_unavailable' });
    expect(Date.now() - started).toBeLessThan(10_000);
    const notReady = await request(app).get('/readyz');
    expect([notReady.status, notReady.headers['retry-after'], notReady.body]).toEqual([
      503,
      '5',
      { status: 'not ready', reason: 'the database does not answer' },
    ]);
    // A keyed write refused by the outage keeps no answer under its key: sent again later, it runs.
    const keyed = () =>
      request(app)
        .post('/v1/anchors')
        .set('Authorization', auth)
        .set('Idempotency-Key', 'during-outage')
        .send({ description: 'Keyed' });
    expect((await keyed()).status).toBe(503);
    expect((await request(app).get('/healthz')).status).toBe(200); // the process is alive

    await proxy.start();
    await waitFor(async () => (await request(app).get('/readyz')).status === 200, {
      what: '/readyz to answer 200 once the database is back',
      timeoutMs: 10_000,
    });
    const back = await request(app).post('/v1/anchors').set('Authorization', auth).send({ description: 'After' });
    expect(back.status).toBe(201);
    expect((await request(app).get('/readyz')).status).toBe(200);
    const keyedAgain = await keyed();
    expect([keyedAgain.status, keyedAgain.headers['idempotent-replayed']]).toEqual([201, undefined]);
    expect((await keyed()).headers['idempotent-replayed']).toBe('true');
    // Nothing written while down: exactly the two anchors made after the database came back.
    expect(await database.prisma.anchor.count({ where: { accountId: signUp.body.id } })).toBe(2);
    // An outage is not a fault of the service: nothing reached logError (a whole error at error level).
    expect(errors).toEqual([]);
  }, 60_000);
});

// The network to the database goes silent (connections stay open, nothing is answered) and comes back.
describe('when the database stops answering', () => {
  /** DATABASE_TIMEOUT_MS of this app: small, so the test waits little. */
  const TIMEOUT_MS = 1_000;
  /**
   * The bound docs/operations.md promises: the timeout, the second for a cancel's answer, and slack
   * for a busy machine.
   */
  const BOUND_MS = TIMEOUT_MS + 1_000 + 1_500;
  let database: TestDatabase;
  let proxy: TcpProxy;
  let prisma: PrismaClient;
  let app: ReturnType<typeof createApp>;
  /** The process's log, as the service writes it: pino's JSON lines. */
  const lines: Array<{ level: number; msg: string; res?: { status: number }; reason?: string }> = [];

  beforeAll(async () => {
    database = await provisionTestDatabase();
    let url: string;
    ({ proxy, url } = await proxyInFrontOf(database.connectionString));
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const availability = new DatabaseAvailability(logger);
    const clients = createDatabaseClients(url, {
      timeoutMs: TIMEOUT_MS,
      onAnswer: availability.answered,
      ...(process.env.DATABASE_URL ? {} : { maxConnections: EMBEDDED_POOL_SIZE }),
    });
    prisma = clients.prisma;
    app = createApp(
      buildContainer({ prisma, sql: clients.sql, verifiedKeyCache: new LruVerifiedKeyCache({ maxEntries: 10 }) }),
      {
        formSecret: randomBytes(32).toString('base64url'),
        readiness: databaseReadiness(prisma),
        databaseFailureOf,
        onUnavailable: availability.lost,
        logger,
      },
    );
  });

  afterAll(async () => {
    proxy.thaw();
    await prisma.$disconnect();
    await proxy.close();
    await database.close();
  });

  const timed = async (send: () => request.Test) => {
    const started = Date.now();
    const response = await send();
    return { response, ms: Date.now() - started };
  };

  it('answers 503 in the bound, fails /readyz, drops stalled connections, logs each request, recovers', async () => {
    const signUp = await request(app)
      .post('/v1/accounts')
      .send({ email: `freeze-${Date.now()}@example.com`, password: 'correct horse battery' });
    expect(signUp.status).toBe(201);
    const auth = `Bearer ${signUp.body.api_key}`;
    expect(
      (await request(app).post('/v1/anchors').set('Authorization', auth).send({ description: 'Before' })).status,
    ).toBe(201);

    const before = lines.length;
    proxy.freeze();
    const keyed = () =>
      request(app)
        .post('/v1/anchors')
        .set('Authorization', auth)
        .set('Idempotency-Key', 'during-freeze')
        .send({ description: 'Keyed' });
    const answers = await Promise.all([
      timed(() => request(app).get('/timelines').set('Authorization', auth)),
      timed(() => request(app).post('/v1/anchors').set('Authorization', auth).send({ description: 'While frozen' })),
      timed(() => request(app).post('/v1/pause-time').set('Authorization', auth).send({})),
      timed(keyed),
      timed(() =>
        request(app)
          .post('/v1/accounts')
          .send({ email: `frozen-${Date.now()}@example.com`, password: 'correct horse battery' }),
      ),
    ]);
    for (const { response, ms } of answers) {
      expect([response.status, response.headers['retry-after'], response.body.code]).toEqual([
        503,
        '5',
        'service_unavailable',
      ]);
      expect(ms).toBeLessThan(BOUND_MS);
    }
    const notReady = await timed(() => request(app).get('/readyz'));
    expect([notReady.response.status, notReady.response.body.reason]).toEqual([503, 'the database does not answer']);
    expect(notReady.ms).toBeLessThan(BOUND_MS);
    // A connection whose statement went unanswered is closed, never handed out again.
    await waitFor(() => proxy.stalledOpen() === 0, { what: 'the stalled connections to be closed' });
    // One warning line per request, the reason on the failed ones, and one line for the outage itself.
    const frozen = lines.slice(before);
    expect(frozen.map((line) => [line.level, line.msg, line.res?.status])).toEqual([
      [40, 'database unavailable: requests that need it are answered 503 until it answers again', undefined],
      ...Array.from({ length: 6 }, () => [40, 'request completed', 503]),
    ]);
    expect(frozen.filter((line) => line.reason?.startsWith('database unavailable: '))).toHaveLength(6);

    const thawed = lines.length;
    proxy.thaw();
    // Every connection the pool still holds works: the first requests after the thaw succeed.
    expect((await request(app).get('/timelines').set('Authorization', auth)).status).toBe(200);
    expect((await request(app).get('/readyz')).status).toBe(200);
    // The keyed write answered 503 kept nothing and left its key free: sent again, it acts once.
    const again = await keyed();
    expect([again.status, again.headers['idempotent-replayed']]).toEqual([201, undefined]);
    expect((await keyed()).headers['idempotent-replayed']).toBe('true');
    const anchors = await database.prisma.anchor.findMany({
      where: { accountId: signUp.body.id },
      orderBy: { createdAt: 'asc' },
    });
    expect(anchors.map((anchor) => anchor.description)).toEqual(['Before', 'Keyed']);
    // Back: one line says so, then the requests' own lines.
    const back = lines.slice(thawed);
    expect(back[0]?.msg).toBe('database available again');
    expect(back.slice(1).map((line) => [line.level, line.msg])).toEqual(
      Array.from({ length: 4 }, () => [30, 'request completed']),
    );
  }, 60_000);

  it('logs an outage that only /readyz meets, and its end, as one requests meet', async () => {
    // A quiet moment: the balancer's probe is the only request, and the database answers it.
    await waitFor(async () => (await request(app).get('/readyz')).status === 200, { what: 'the database to answer' });
    const before = lines.length;
    proxy.freeze();
    const notReady = await request(app).get('/readyz');
    expect(notReady.status).toBe(503);
    const frozen = lines.slice(before);
    expect(frozen.map((line) => [line.level, line.msg, line.res?.status])).toEqual([
      [40, 'database unavailable: requests that need it are answered 503 until it answers again', undefined],
      [40, 'request completed', 503],
    ]);
    expect(frozen[1]?.reason).toMatch(/^database unavailable: /);
    await waitFor(() => proxy.stalledOpen() === 0, { what: 'the stalled connections to be closed' });

    const thawed = lines.length;
    proxy.thaw();
    expect((await request(app).get('/readyz')).status).toBe(200);
    expect(lines.slice(thawed).map((line) => line.msg)).toEqual(['database available again', 'request completed']);
  }, 30_000);

  it('keeps the answer with the writes if only answers are lost: the retry gets it, nothing acts twice', async () => {
    const signUp = await request(app)
      .post('/v1/accounts')
      .send({ email: `answers-${Date.now()}@example.com`, password: 'correct horse battery' });
    const auth = `Bearer ${signUp.body.api_key}`;
    expect((await request(app).get('/timelines').set('Authorization', auth)).status).toBe(200);
    // A first keyed request claims this process's block of the account's kept-answer quota, so that
    // the request below sends only its write's statement (the one whose answer is lost).
    const first = await request(app)
      .post('/v1/anchors')
      .set('Authorization', auth)
      .set('Idempotency-Key', 'before-the-loss')
      .send({ description: 'Before' });
    expect(first.status).toBe(201);

    // The database acts on what it receives; the service hears nothing back.
    proxy.freeze('answers');
    const keyed = () =>
      request(app)
        .post('/v1/anchors')
        .set('Authorization', auth)
        .set('Idempotency-Key', 'answer-lost')
        .send({ description: 'Lost' });
    const lost = await timed(keyed);
    expect([lost.response.status, lost.response.headers['retry-after']]).toEqual([503, '5']);
    expect(lost.ms).toBeLessThan(BOUND_MS);
    await waitFor(() => proxy.stalledOpen() === 0, { what: 'the stalled connection to be closed' });
    proxy.thaw();

    // The anchor's statement, with the key claimed and the answer kept, committed unseen: the
    // retry gets that answer, and the anchor is there once (docs/decisions.md, Idempotency-Key).
    const retry = await keyed();
    expect([retry.status, retry.headers['idempotent-replayed']]).toEqual([201, 'true']);
    const anchors = await database.prisma.anchor.findMany({
      where: { accountId: signUp.body.id, description: 'Lost' },
    });
    expect(anchors.map((anchor) => anchor.id)).toEqual([retry.body.id]);
  }, 60_000);
});
