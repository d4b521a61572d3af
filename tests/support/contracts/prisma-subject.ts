import { prismaRepositories } from '../../../src/infrastructure/persistence/prisma/prisma-repositories';
import { PrismaTransactionBoundary } from '../../../src/infrastructure/persistence/prisma/prisma-transaction-boundary';
import { RequestTransactions } from '../../../src/infrastructure/persistence/prisma/request-transactions';
import { provisionTestDatabase, type TestDatabase } from '../test-database';
import type { MakeRepositories } from './subject';

/**
 * The Prisma adapters on one database for the whole test file (provisioned before its tests,
 * dropped after them), emptied before each test. Call at the top level of a test file.
 */
export function prismaRepositoriesOnTestDatabase(): MakeRepositories {
  let database: TestDatabase | null = null;
  beforeAll(async () => {
    database = await provisionTestDatabase();
  });
  afterAll(async () => {
    await database?.close();
  });
  return async () => {
    if (!database) throw new Error('The test database is provisioned in beforeAll.');
    const { prisma, sql } = database;
    // Every other table hangs off accounts (ON DELETE CASCADE) except the login counters.
    await prisma.$executeRawUnsafe('TRUNCATE accounts, login_throttles CASCADE');
    // As the service composes them: the busiest statements straight on the pool.
    return {
      repos: prismaRepositories(prisma, sql),
      tx: new PrismaTransactionBoundary(prisma, new RequestTransactions(prisma), { sql }),
      cleanup: async () => {},
    };
  };
}
