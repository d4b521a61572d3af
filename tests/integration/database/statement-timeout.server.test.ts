import {
  createDatabaseClients,
  isDatabaseUnavailable,
  type DatabaseClients,
} from '../../../src/infrastructure/database/prisma-client';
import { provisionTestDatabase, type TestDatabase } from '../../support/test-database';

// DATABASE_TIMEOUT_MS on the server's side: PostgreSQL cancels a statement that runs longer (its
// locks and work end with it), and the service reads the cancel as the database being unavailable (503).
describe('statement_timeout of the request pool', () => {
  let database: TestDatabase;
  let clients: DatabaseClients;

  beforeAll(async () => {
    database = await provisionTestDatabase();
    clients = createDatabaseClients(database.connectionString, { timeoutMs: 300, maxConnections: 1 });
  });

  afterAll(async () => {
    await clients.prisma.$disconnect();
    await database.close();
  });

  it('cancels a statement beyond the bound, on both runners, as unavailable, and the pool serves on', async () => {
    for (const slow of [
      () => clients.sql.query('SELECT pg_sleep(3)', []),
      () => clients.prisma.$queryRaw`SELECT pg_sleep(3)`,
    ]) {
      const failure = await slow().then(
        () => null,
        (error: unknown) => error,
      );
      expect(isDatabaseUnavailable(failure)).toBe(true);
    }
    expect(await clients.sql.query("SELECT current_setting('statement_timeout') AS bound", [])).toEqual([
      { bound: '300ms' },
    ]);
  });
});
