// A request whose statement runs past DATABASE_TIMEOUT_MS (here: waiting behind a lock another
// session holds) is that request's failure: 503 operation_timed_out with Retry-After, counted by
// reason, no outage line nor outage state, and the requests beside and after it are served. Needs
// a server: the embedded PGlite cancels no statement (docs/decisions.md, "A statement past its bound").
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { pino } from 'pino';
import request from 'supertest';
import { buildContainer } from '../../src/composition/container';
import { LruVerifiedKeyCache } from '../../src/infrastructure/api-key-cache/lru-verified-key-cache';
import { DatabaseAvailability } from '../../src/infrastructure/database/health/database-availability';
import { databaseFailureOf } from '../../src/infrastructure/database/driver/database-failures';
import { createDatabaseClients, type DatabaseClients } from '../../src/infrastructure/database/driver/prisma-client';
import { databaseReadiness } from '../../src/infrastructure/database/health/readiness';
import { createApp } from '../../src/interfaces/http/app';
import { QUICK_SCRYPT_COST } from '../support/http/test-app';
import { provisionTestDatabase, type TestDatabase } from '../support/test-database';

jest.setTimeout(30_000);

/** DATABASE_TIMEOUT_MS of this app: small, so the test waits little. */
const TIMEOUT_MS = 500;

interface Line {
  readonly level: number;
  readonly msg: string;
  readonly res?: { readonly status: number | null };
  readonly code?: string;
  readonly reason?: string;
}

describe('a statement past the bound', () => {
  let database: TestDatabase;
  let clients: DatabaseClients;
  let availability: DatabaseAvailability;
  let app: ReturnType<typeof createApp>;
  let auth: string;
  const lines: Line[] = [];
  const faults: unknown[] = [];

  beforeAll(async () => {
    database = await provisionTestDatabase();
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    availability = new DatabaseAvailability(logger);
    clients = createDatabaseClients(database.connectionString, {
      timeoutMs: TIMEOUT_MS,
      onAnswer: availability.answered,
      preparedStatements: true,
    });
    app = createApp(
      buildContainer({
        ...clients,
        scryptCost: QUICK_SCRYPT_COST,
        verifiedKeyCache: new LruVerifiedKeyCache({ maxEntries: 10 }),
      }),
      {
        formSecret: randomBytes(32).toString('base64url'),
        readiness: databaseReadiness(clients.prisma),
        databaseFailureOf,
        onUnavailable: availability.lost,
        onTimedOut: availability.timedOut,
        logError: (error) => faults.push(error),
        logger,
      },
    );
    const signUp = await request(app)
      .post('/v1/accounts')
      .send({ email: `slow-${Date.now()}@example.com`, password: 'correct horse battery' });
    expect(signUp.status).toBe(201);
    auth = `Bearer ${signUp.body.api_key}`;
    // The key is now verified in memory: the requests below reach the database only for their work.
    expect((await request(app).get('/timelines').set('Authorization', auth)).status).toBe(200);
  });

  afterAll(async () => {
    await clients.prisma.$disconnect();
    await database.close();
  });

  it('answers that request 503 operation_timed_out, counts it, and serves the others as usual', async () => {
    const before = lines.length;
    const lock = await lockTable(database.connectionString, 'timelines');
    const slow = request(app).get('/timelines').set('Authorization', auth);
    // While it waits for the table, another request of the same account, on another table, is served.
    const beside = await request(app).post('/v1/anchors').set('Authorization', auth).send({ description: 'Beside' });
    const timedOut = await slow;
    await lock.release();
    const after = await request(app).get('/timelines').set('Authorization', auth);

    expect(beside.status).toBe(201);
    expect([timedOut.status, timedOut.headers['retry-after'], timedOut.body.code]).toEqual([
      503,
      '5',
      'operation_timed_out',
    ]);
    expect(timedOut.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(after.status).toBe(200);
    expect((await request(app).get('/readyz')).status).toBe(200);
    // Counted by reason; no outage seen, nothing logged as a fault.
    expect(Object.fromEntries(availability.timeouts)).toEqual({ statement_timeout: 1 });
    expect([availability.outages, availability.available]).toEqual([0, true]);
    expect(faults).toEqual([]);
    // The request's own line says it, with its code and why; no line of an outage.
    const logged = lines.slice(before);
    expect(logged.filter((line) => line.msg.startsWith('database '))).toEqual([]);
    const line = logged.find((each) => each.res?.status === 503);
    expect(line).toMatchObject({ level: 40, msg: 'request completed', code: 'operation_timed_out' });
    expect(line?.reason).toMatch(/^statement_timeout: .*canceling statement due to statement timeout/);
  });

  it("answers /readyz 503 with its reason when the probe's read is stopped, as a request's failure", async () => {
    const before = lines.length;
    const counted = availability.timeouts.get('statement_timeout') ?? 0;
    const lock = await lockTable(database.connectionString, '_prisma_migrations');
    const probe = await request(app).get('/readyz');
    await lock.release();
    expect([probe.status, probe.headers['retry-after'], probe.body]).toEqual([
      503,
      '5',
      { status: 'not ready', reason: 'the database did not answer within DATABASE_TIMEOUT_MS' },
    ]);
    expect(availability.timeouts.get('statement_timeout')).toBe(counted + 1);
    expect([availability.outages, faults]).toEqual([0, []]);
    expect(lines.slice(before).map((line) => [line.level, line.msg, line.reason?.split(':')[0]])).toEqual([
      [40, 'request completed', 'statement_timeout'],
    ]);
    expect((await request(app).get('/readyz')).status).toBe(200);
  });

  it('keeps no keyed answer for a write stopped at the bound: its retry acts, once', async () => {
    const keyed = () =>
      request(app)
        .post('/v1/anchors')
        .set('Authorization', auth)
        .set('Idempotency-Key', 'stopped-at-the-bound')
        .send({ description: 'Keyed' });
    const lock = await lockTable(database.connectionString, 'anchors');
    const stopped = await keyed();
    await lock.release();
    expect([stopped.status, stopped.body.code]).toEqual([503, 'operation_timed_out']);

    const again = await keyed();
    expect([again.status, again.headers['idempotent-replayed']]).toEqual([201, undefined]);
    expect((await keyed()).headers['idempotent-replayed']).toBe('true');
    const anchors = await database.prisma.anchor.findMany({ where: { description: 'Keyed' } });
    expect(anchors).toHaveLength(1);
    expect(availability.outages).toBe(0);
  });
});

/** Another session holds `table` (no one reads or writes it) until released. */
async function lockTable(connectionString: string, table: string): Promise<{ release(): Promise<void> }> {
  const holder = new Client({ connectionString });
  await holder.connect();
  await holder.query('BEGIN');
  await holder.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
  return {
    async release() {
      await holder.query('ROLLBACK');
      await holder.end();
    },
  };
}
