// Statements sent straight on the pool Prisma shares (the service's busiest ones): parameters and
// answers as through Prisma, and an unreachable or lost database recognised as unavailable (503,
// not 500), like Prisma's own errors.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ClientBase } from 'pg';
import { createDatabaseClients, isDatabaseUnavailable } from '../../../src/infrastructure/database/prisma-client';
import type { SqlRunner } from '../../../src/infrastructure/persistence/prisma/sql-runner';
import { proxyInFrontOf, type TcpProxy } from '../../support/tcp-proxy';
import { provisionTestDatabase, type TestDatabase } from '../../support/test-database';
import { signal, within } from '../../support/wait-for';

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
      const { createDatabaseClients } = require('./src/infrastructure/database/prisma-client');
      const { prisma, sql } = createDatabaseClients(process.env.URL, { maxConnections: 1 });
      const instants = ['1900-01-01T00:00:00.000Z', '1500-06-01T12:00:00.500Z', '2030-01-01T12:00:00.123Z'];
      Promise.all(instants.map((iso) => sql.query('SELECT $1::timestamptz::text AS stored', [new Date(iso)])))
        .then((rows) => console.log(JSON.stringify(rows.map(([row]) => row.stored))))
        .finally(() => prisma.$disconnect());`;
    const { stdout } = await run(process.execPath, ['--import', 'tsx', '-e', script], {
      cwd: join(__dirname, '../../..'),
      env: { ...process.env, TZ: 'Asia/Kolkata', URL: database.connectionString },
    });

    expect(JSON.parse(stdout)).toEqual([
      '1900-01-01 00:00:00+00',
      '1500-06-01 12:00:00.5+00',
      '2030-01-01 12:00:00.123+00',
    ]);
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
    const slow = throughProxy.sql.query('SELECT pg_sleep(5)', []).catch((error: unknown) => error);
    await within(sent, { what: 'the slow statement to reach the database' });
    await proxy.stop();

    expect(isDatabaseUnavailable(await slow)).toBe(true);
    expect(isDatabaseUnavailable(await throughProxy.sql.query('SELECT 1', []).catch((error: unknown) => error))).toBe(
      true,
    );

    await proxy.start();
    expect(await throughProxy.sql.query('SELECT 1 AS one', [])).toEqual([{ one: 1 }]);
  });

  it('does not take a refused statement for an outage', async () => {
    const refused = await database.sql.query('SELECT 1 / 0', []).catch((error: unknown) => error);

    expect(refused).toBeInstanceOf(Error);
    expect(isDatabaseUnavailable(refused)).toBe(false);
  });
});

describe('a transaction on the shared pool (SqlRunner.transaction)', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  // One connection: a connection kept out of the pool, or handed out broken, fails the next test step.
  let throughProxy: ReturnType<typeof createDatabaseClients>;
  /** The last connection the pool made: with one connection at most, the one there is. */
  let newestConnection: ClientBase | undefined;
  /** The transaction's failure, or its answer when it has none. */
  const failureOf = (work: (sql: SqlRunner) => Promise<unknown>) =>
    throughProxy.sql.transaction(work).catch((error: unknown) => error);
  const backend = async (sql: SqlRunner) =>
    (await sql.query<{ pid: number }>('SELECT pg_backend_pid() AS pid', []))[0].pid;
  const probed = async () =>
    (await database.sql.query<{ id: number }>('SELECT id FROM pool_transaction_probe ORDER BY id', [])).map(
      (row) => row.id,
    );

  beforeAll(async () => {
    database = await provisionTestDatabase();
    await database.sql.query('CREATE TABLE pool_transaction_probe (id integer PRIMARY KEY)', []);
    let url: string;
    ({ proxy, url } = await proxyInFrontOf(database.connectionString));
    throughProxy = createDatabaseClients(url, {
      maxConnections: 1,
      onConnect: (client) => {
        newestConnection = client;
        return Promise.resolve();
      },
    });
  });
  beforeEach(() => database.sql.query('DELETE FROM pool_transaction_probe', []));
  // A test that fails while the database is away must not take the next tests' database with it.
  afterEach(() => proxy.start().catch(() => undefined));
  afterAll(async () => {
    await throughProxy.prisma.$disconnect();
    await proxy.close();
    await database.close();
  });

  it("commits the work's statements together and answers what the work answered", async () => {
    const answer = await throughProxy.sql.transaction(async (sql) => {
      await sql.query('INSERT INTO pool_transaction_probe (id) VALUES (1)', []);
      await sql.query('INSERT INTO pool_transaction_probe (id) VALUES (2)', []);
      return 'done';
    });

    expect(answer).toBe('done');
    expect(await probed()).toEqual([1, 2]);
  });

  it("writes nothing when the work fails, passes the work's own error on, and keeps the connection", async () => {
    const failure = new Error('the work gave up');
    let used = 0;
    const outcome = await failureOf(async (sql) => {
      used = await backend(sql);
      await sql.query('INSERT INTO pool_transaction_probe (id) VALUES (11)', []);
      throw failure;
    });

    expect(outcome).toBe(failure);
    expect(await probed()).toEqual([]);
    // The same server connection again: rolled back and returned to the pool, not dropped.
    expect(await throughProxy.sql.transaction(backend)).toBe(used);
  });

  it('writes nothing when PostgreSQL refuses a statement, and does not take the refusal for an outage', async () => {
    let used = 0;
    const refused = await failureOf(async (sql) => {
      used = await backend(sql);
      await sql.query('INSERT INTO pool_transaction_probe (id) VALUES (21)', []);
      await sql.query('INSERT INTO pool_transaction_probe (id) VALUES (21)', []);
    });

    expect(refused).toBeInstanceOf(Error);
    expect(isDatabaseUnavailable(refused)).toBe(false);
    expect(await probed()).toEqual([]);
    // Rolled back, and its connection went back to the pool usable: the same one writes next.
    const next = await throughProxy.sql.transaction(async (sql) => {
      await sql.query('INSERT INTO pool_transaction_probe (id) VALUES (22)', []);
      return backend(sql);
    });
    expect(next).toBe(used);
    expect(await probed()).toEqual([22]);
  });

  it('does not report a commit when the work caught a refused statement and went on', async () => {
    const outcome = await failureOf(async (sql) => {
      await sql.query('INSERT INTO pool_transaction_probe (id) VALUES (51)', []);
      await sql.query('SELECT 1 / 0', []).catch(() => undefined);
      return 'done';
    });

    expect(outcome).toEqual(
      new Error('the transaction was rolled back: a statement in it failed and the work went on'),
    );
    expect(await probed()).toEqual([]);
  });

  // A connection lost while held is reported as an 'error' event on the client too; without a
  // listener that event would end the process (here: fail the run as an uncaught exception).
  it('survives a connection lost mid-statement: unavailable, nothing written, and the pool recovers', async () => {
    const sent = proxy.delivered('pg_sleep');
    const lost = failureOf(async (sql) => {
      await sql.query('INSERT INTO pool_transaction_probe (id) VALUES (31)', []);
      await sql.query('SELECT pg_sleep(5)', []);
    });
    await within(sent, { what: 'the slow statement to reach the database' });
    await proxy.stop();

    expect(isDatabaseUnavailable(await lost)).toBe(true);
    await proxy.start();
    await throughProxy.sql.transaction((sql) => sql.query('INSERT INTO pool_transaction_probe (id) VALUES (32)', []));
    expect(await probed()).toEqual([32]);
  });

  it('survives a connection lost between two statements of the work: unavailable, nothing written', async () => {
    const inserted = signal();
    const lost = failureOf(async (sql) => {
      await sql.query('INSERT INTO pool_transaction_probe (id) VALUES (41)', []);
      // The pool's one connection, so the one this work holds.
      const held = newestConnection;
      if (held === undefined) throw new Error('the pool made no connection');
      // Not events.once: its own 'error' listener would keep the process alive without the runner's.
      const ended = new Promise<void>((resolve) => held.once('end', () => resolve()));
      inserted.resolve();
      // No statement in flight when the connection goes: only the client's 'error' event, just
      // before its 'end', tells.
      await within(ended, { what: 'the connection the work holds to end' });
      await sql.query('INSERT INTO pool_transaction_probe (id) VALUES (42)', []);
    });
    await inserted.promise;
    await proxy.stop();

    expect(isDatabaseUnavailable(await lost)).toBe(true);
    await proxy.start();
    await throughProxy.sql.transaction((sql) => sql.query('INSERT INTO pool_transaction_probe (id) VALUES (43)', []));
    expect(await probed()).toEqual([43]);
  });

  it('refuses to start a transaction inside another', async () => {
    const nested = await failureOf((sql) => sql.transaction(() => Promise.resolve('inner')));

    expect(nested).toEqual(new Error('a transaction of its own cannot start inside another'));
  });
});
