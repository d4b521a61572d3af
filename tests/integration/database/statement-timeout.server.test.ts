import { setTimeout } from 'node:timers/promises';
import { databaseFailureOf } from '../../../src/infrastructure/database/driver/database-failures';
import { CANCEL_ANSWER_MS } from '../../../src/infrastructure/database/driver/database-timeouts';
import { createDatabaseClients, type DatabaseClients } from '../../../src/infrastructure/database/driver/prisma-client';
import { provisionTestDatabase, type TestDatabase } from '../../support/test-database';

// DATABASE_TIMEOUT_MS on the server's side: PostgreSQL cancels a statement that runs longer (its
// locks and work end with it), and the service reads the cancel as that request's timeout (503
// operation_timed_out), not as the database being unavailable.
describe('statement_timeout of the request pool', () => {
  let database: TestDatabase;
  let clients: DatabaseClients;

  beforeAll(async () => {
    database = await provisionTestDatabase();
    // A second: the bound covers a connection's making and a wait for the pool's one connection too,
    // which on a machine busy with the rest of the suite passed 300 ms (the one connection, closed
    // after a cancel that came late, is made again). The cases below are about statements.
    clients = createDatabaseClients(database.connectionString, { timeoutMs: 1_000, maxConnections: 1 });
    // The pool's one connection made now.
    await clients.sql.query('SELECT 1', []);
    await clients.prisma.$queryRaw`SELECT 1`;
  });

  afterAll(async () => {
    await clients.prisma.$disconnect();
    await database.close();
  });

  it('cancels a statement beyond the bound, on both runners, as a timeout, and the pool serves on', async () => {
    for (const slow of [
      () => clients.sql.query('SELECT pg_sleep(3)', []),
      () => clients.prisma.$queryRaw`SELECT pg_sleep(3)`,
    ]) {
      const failure = await slow().catch((error: unknown) => error);
      expect(databaseFailureOf(failure)).toBe('statement_timeout');
    }
    expect(await clients.sql.query("SELECT current_setting('statement_timeout') AS bound", [])).toEqual([
      { bound: '1s' },
    ]);
  });

  it("reads a model query's cancel, waiting behind another session's lock, as a timeout", async () => {
    const lock = await lockTimelines();
    const failure = await clients.prisma.timeline
      .findMany({ where: { accountId: 'nobody' } })
      .catch((error: unknown) => error);
    await lock.release();
    expect(databaseFailureOf(failure)).toBe('statement_timeout');
    expect(await clients.prisma.timeline.findMany({ where: { accountId: 'nobody' } })).toEqual([]);
  });

  it('reads an answer that came while the event loop was held up as the answer, not as silence', async () => {
    // The guard closes a connection silent for the bound + CANCEL_ANSWER_MS; the cancel's answer
    // arrives within it but lies unread while the loop is busy past it.
    const guarded = createDatabaseClients(database.connectionString, { timeoutMs: 200, maxConnections: 1 });
    try {
      await guarded.sql.query('SELECT 1', []);
      const slow = guarded.sql.query('SELECT pg_sleep(3)', []).catch((error: unknown) => error);
      await running('SELECT pg_sleep(3)');
      holdEventLoop(200 + CANCEL_ANSWER_MS + 800);
      expect(databaseFailureOf(await slow)).toBe('statement_timeout');
      expect(await guarded.sql.query('SELECT 1 AS one', [])).toEqual([{ one: 1 }]);
    } finally {
      await guarded.prisma.$disconnect();
    }
  });

  /** Until the statement is running on the server: the held loop must not delay its sending. */
  async function running(statement: string): Promise<void> {
    const [{ seen } = { seen: false }] = await clients.sql.query<{ seen: boolean }>(
      `SELECT count(*) > 0 AS seen FROM pg_stat_activity
        WHERE datname = current_database() AND state = 'active' AND query = $1`,
      [statement],
    );
    if (!seen) return setTimeout(10).then(() => running(statement));
  }

  function holdEventLoop(ms: number): void {
    const until = performance.now() + ms;
    while (performance.now() < until);
  }

  /** Another session holds the timelines table until released: a read of it waits. */
  async function lockTimelines(): Promise<{ release(): Promise<void> }> {
    const holder = createDatabaseClients(database.connectionString, { maxConnections: 1, timeoutMs: 10_000 });
    const released = Promise.withResolvers<void>();
    const held = Promise.withResolvers<void>();
    const transaction = holder.prisma.$transaction(async (tx) => {
      await tx.$executeRawUnsafe('LOCK TABLE timelines IN ACCESS EXCLUSIVE MODE');
      held.resolve();
      await released.promise;
    });
    await held.promise;
    return {
      async release() {
        released.resolve();
        await transaction;
        await holder.prisma.$disconnect();
      },
    };
  }
});
