import { PostgresIdempotencyStore } from '../../../src/infrastructure/persistence/postgres/idempotency-store';
import { PostgresRateCounterStore } from '../../../src/infrastructure/persistence/postgres/rate-counter-store';
import { plainRepositories } from '../plain-repositories';
import { PostgresTransactionBoundary } from '../../../src/infrastructure/persistence/postgres/transaction-boundary';
import { KeyedRequests } from '../../../src/infrastructure/persistence/postgres/unit-of-work/keyed-requests';
import { provisionTestDatabase, type TestDatabase } from '../test-database';
import type { MakeRepositories } from './subject';

/**
 * The PostgreSQL adapters on one database for the whole test file (provisioned before its tests,
 * dropped after them), emptied before each test. Call at the top level of a test file.
 */
export function postgresRepositoriesOnTestDatabase(): MakeRepositories {
  let database: TestDatabase | null = null;
  beforeAll(async () => {
    database = await provisionTestDatabase();
  });
  afterAll(async () => {
    await database?.close();
  });
  return async () => {
    if (!database) throw new Error('The test database is provisioned in beforeAll.');
    // Every other table hangs off accounts (ON DELETE CASCADE) except the login and rate counters
    // and the Idempotency-Keys.
    await database.prisma.$executeRawUnsafe(
      'TRUNCATE accounts, login_throttles, rate_limit_counters, idempotency_keys CASCADE',
    );
    // As the service composes them. A new boundary each test: it remembers travellers it wrote.
    const db = database;
    const keyed = new KeyedRequests(database.sql);
    return {
      repos: plainRepositories(database),
      tx: new PostgresTransactionBoundary(database, keyed),
      anotherProcess: () => new PostgresTransactionBoundary(db, new KeyedRequests(db.sql)),
      keys: new PostgresIdempotencyStore(database.prisma, database.sql, keyed, { now: () => new Date() }),
      counters: new PostgresRateCounterStore(database.prisma, database.sql),
      cleanup: async () => {},
    };
  };
}
