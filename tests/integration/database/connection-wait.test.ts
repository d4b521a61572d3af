// A process whose pool has no connection free for DATABASE_TIMEOUT_MS is saturated, not cut off
// from its database: the wait ends as a timeout of its own (`connection_wait`), never an outage,
// whether the statement went straight on the pool or through Prisma (database-failures.ts).
import {
  databaseFailureOf,
  isDatabaseUnavailable,
} from '../../../src/infrastructure/database/driver/database-failures';
import { createDatabaseClients, type DatabaseClients } from '../../../src/infrastructure/database/driver/prisma-client';
import { provisionTestDatabase, type TestDatabase } from '../../support/test-database';

jest.setTimeout(30_000);

/** The pool's bound on a wait for a connection (DATABASE_TIMEOUT_MS): short, so the test waits little. */
const TIMEOUT_MS = 300;

describe('a wait for a connection of a full pool', () => {
  let database: TestDatabase;
  let clients: DatabaseClients;

  beforeAll(async () => {
    database = await provisionTestDatabase();
    clients = createDatabaseClients(database.connectionString, { maxConnections: 1, timeoutMs: TIMEOUT_MS });
  });
  afterAll(async () => {
    await clients.prisma.$disconnect();
    await database.close();
  });

  /** Runs `meanwhile` while the pool's one connection is held by an open transaction, then lets it go. */
  async function whileHeld<T>(meanwhile: () => Promise<T>): Promise<T> {
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    let held = () => {};
    const holding = new Promise<void>((resolve) => (held = resolve));
    const transaction = clients.prisma.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT 1`;
      held();
      await released;
    });
    await holding;
    try {
      return await meanwhile();
    } finally {
      release();
      await transaction;
    }
  }

  it('ends a statement sent straight on the pool as connection_wait, not the database unavailable', async () => {
    const failure = await whileHeld(() =>
      clients.sql.query('SELECT 1', []).then(
        () => null,
        (error: unknown) => error,
      ),
    );
    expect(failure).not.toBeNull();
    expect(databaseFailureOf(failure)).toBe('connection_wait');
    expect(isDatabaseUnavailable(failure)).toBe(false);
  });

  it("ends a Prisma statement the same way, the pool's words inside Prisma's error", async () => {
    const failure = await whileHeld(() =>
      clients.prisma.$queryRaw`SELECT 1`.then(
        () => null,
        (error: unknown) => error,
      ),
    );
    expect(failure).not.toBeNull();
    expect(databaseFailureOf(failure)).toBe('connection_wait');
  });

  it('serves the next statement once the connection is free again', async () => {
    await expect(clients.sql.query<{ one: number }>('SELECT 1 AS one', [])).resolves.toEqual([{ one: 1 }]);
  });
});
