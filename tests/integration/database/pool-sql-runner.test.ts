// Statements sent straight on the pool Prisma shares (the service's busiest ones): parameters and
// answers as through Prisma, and an unreachable or lost database recognised as unavailable (503,
// not 500), like Prisma's own errors.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  databaseFailureOf,
  isDatabaseUnavailable,
  isReadOnly,
} from '../../../src/infrastructure/database/driver/database-failures';
import { createDatabaseClients } from '../../../src/infrastructure/database/driver/prisma-client';
import { proxyInFrontOf, type TcpProxy } from '../../support/tcp-proxy';
import { provisionTestDatabase, type TestDatabase } from '../../support/test-database';
import { within } from '../../support/wait-for';

jest.setTimeout(30_000);

const run = promisify(execFile);

const INSTANT = new Date('0001-01-01T00:00:00.001Z');

describe('statements on the shared pool', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let throughProxy: ReturnType<typeof createDatabaseClients>;

  beforeAll(async () => {
    database = await provisionTestDatabase();
    let url: string;
    ({ proxy, url } = await proxyInFrontOf(database.connectionString));
    throughProxy = createDatabaseClients(url, { maxConnections: 1 });
  });
  afterAll(async () => {
    await throughProxy.prisma.$disconnect();
    await proxy.close();
    await database.close();
  });

  it('sends parameters and answers rows as Prisma does: instants, arrays, nulls', async () => {
    const [row] = await database.sql.query<{ at: Date; list: string[]; none: null; text: string }>(
      'SELECT $1::timestamptz AS at, $2::text[] AS list, $3::text AS none, $4::text AS text',
      [INSTANT, ['a', "b'c"], null, 'ü'],
    );

    expect(row).toEqual({ at: INSTANT, list: ['a', "b'c"], none: null, text: 'ü' });
  });

  it("sends instants exactly whatever the process's time zone, historical offsets with seconds included", async () => {
    // In a process of its own: Jest's sandbox keeps a copy of process.env, so TZ set here would not apply.
    const script = `
      const { createDatabaseClients } = require('./src/infrastructure/database/driver/prisma-client');
      const { prisma, sql } = createDatabaseClients(process.env.URL, { maxConnections: 1 });
      const instants = ['1900-01-01T00:00:00.000Z', '1500-06-01T12:00:00.500Z', '2030-01-01T12:00:00.123Z'];
      const alone = instants.map((iso) => sql.query('SELECT $1::timestamptz::text AS stored', [new Date(iso)]));
      const inArray = sql.query('SELECT $1::timestamptz[]::text[] AS stored', [instants.map((iso) => new Date(iso))]);
      Promise.all([...alone, inArray])
        .then((rows) => console.log(JSON.stringify(rows.map(([row]) => row.stored))))
        .finally(() => prisma.$disconnect());`;
    const { stdout } = await run(process.execPath, ['--import', 'tsx', '-e', script], {
      cwd: join(__dirname, '../../..'),
      env: { ...process.env, TZ: 'Asia/Kolkata', URL: database.connectionString },
    });

    const stored = ['1900-01-01 00:00:00+00', '1500-06-01 12:00:00.5+00', '2030-01-01 12:00:00.123+00'];
    expect(JSON.parse(stdout)).toEqual([...stored, stored]);
  });

  it('reports a database that cannot be reached as unavailable', async () => {
    const unreachable = createDatabaseClients('postgresql://postgres@127.0.0.1:1/none', { maxConnections: 1 });
    try {
      const failure = await unreachable.sql.query('SELECT 1', []).catch((error: unknown) => error);
      expect(isDatabaseUnavailable(failure)).toBe(true);
    } finally {
      await unreachable.prisma.$disconnect();
    }
  });

  it('reports a connection lost during a statement as unavailable, and recovers', async () => {
    expect(await throughProxy.sql.query('SELECT 1 AS one', [])).toEqual([{ one: 1 }]);
    const sent = proxy.delivered('pg_sleep');
    // Short: the embedded database's one backend goes on sleeping after the connection is lost, and
    // the statement after the restart waits for it, within the pool's bound (5 s).
    const slow = throughProxy.sql.query('SELECT pg_sleep(2)', []).catch((error: unknown) => error);
    await within(sent, { what: 'the slow statement to reach the database' });
    await proxy.stop();

    expect(isDatabaseUnavailable(await slow)).toBe(true);
    expect(isDatabaseUnavailable(await throughProxy.sql.query('SELECT 1', []).catch((error: unknown) => error))).toBe(
      true,
    );

    await proxy.start();
    expect(await throughProxy.sql.query('SELECT 1 AS one', [])).toEqual([{ one: 1 }]);
  });

  it("reports Prisma's raw statements on a database that cannot be reached as unavailable", async () => {
    // A raw statement's error is P2010 whatever the cause; only the adapter's kind of failure tells.
    const unreachable = createDatabaseClients('postgresql://postgres@127.0.0.1:1/none', { maxConnections: 1 });
    try {
      const failure = await unreachable.prisma.$queryRaw`SELECT 1`.catch((error: unknown) => error);
      expect(failure).toMatchObject({ code: 'P2010' });
      expect(isDatabaseUnavailable(failure)).toBe(true);
    } finally {
      await unreachable.prisma.$disconnect();
    }
  });

  it('does not take a refused statement for an outage', async () => {
    const refused = await database.sql.query('SELECT 1 / 0', []).catch((error: unknown) => error);

    expect(refused).toBeInstanceOf(Error);
    expect(isDatabaseUnavailable(refused)).toBe(false);
    const refusedRaw = await database.prisma.$queryRaw`SELECT 1 / 0`.catch((error: unknown) => error);
    expect(refusedRaw).toMatchObject({ code: 'P2010' });
    expect(isDatabaseUnavailable(refusedRaw)).toBe(false);
  });

  // Refusals that say the database cannot serve now, not that the statement is wrong: 503 with
  // Retry-After, through the pool and through Prisma alike.
  it.each([
    { what: 'a full disk', code: '53100', condition: 'disk_full', message: 'could not extend file' },
    // What a pool's LISTEN or write meets on a node still in recovery, mid-failover.
    {
      what: "a standby's refusal",
      code: '25006',
      condition: 'read_only_sql_transaction',
      message: 'cannot execute LISTEN during recovery',
    },
    // PgBouncer's answer while it cannot log in to the server, mid-failover.
    {
      what: "a pooler's refusal (class 08)",
      code: '08P01',
      condition: 'protocol_violation',
      message: 'server login has been failing, try again later (server_login_retry)',
    },
  ])("takes $what (PostgreSQL's $code) for an outage, not a fault", async ({ code, condition, message }) => {
    const refusal = `DO $$ BEGIN RAISE EXCEPTION '${message}' USING ERRCODE = '${condition}'; END $$`;
    const fromPool = await database.sql.query(refusal, []).catch((error: unknown) => error);
    expect(fromPool).toMatchObject({ code });
    expect(isDatabaseUnavailable(fromPool)).toBe(true);
    const fromPrisma = await database.prisma.$executeRawUnsafe(refusal).catch((error: unknown) => error);
    expect(isDatabaseUnavailable(fromPrisma)).toBe(true);
    // A standby's, as a full disk's, is said and counted as a condition of its own (database-availability.ts).
    expect([isReadOnly(fromPool), isReadOnly(fromPrisma)]).toEqual([code === '25006', code === '25006']);
  });

  // The database gave up on the statement at its bound: that request's failure, not an outage.
  it.each([
    { code: '57014', condition: 'query_canceled', message: 'canceling statement due to statement timeout' },
    { code: '55P03', condition: 'lock_not_available', message: 'canceling statement due to lock timeout' },
  ])("takes PostgreSQL's $code for a timeout, not an outage", async ({ code, condition, message }) => {
    const refusal = `DO $$ BEGIN RAISE EXCEPTION '${message}' USING ERRCODE = '${condition}'; END $$`;
    const reason = code === '57014' ? 'statement_timeout' : 'lock_timeout';
    const fromPool = await database.sql.query(refusal, []).catch((error: unknown) => error);
    expect([(fromPool as { code?: unknown }).code, databaseFailureOf(fromPool)]).toEqual([code, reason]);
    const fromPrisma = await database.prisma.$executeRawUnsafe(refusal).catch((error: unknown) => error);
    expect(databaseFailureOf(fromPrisma)).toBe(reason);
  });
});
