// Jest globalTeardown: removes what the global setup made, and any test database of this run
// that a crashed worker left behind.
import { POOL_GLOBAL, type PglitePool } from './pglite-pool';
import { TEST_DATABASE_ENV, TEST_DATABASE_PREFIX, withAdminClient } from './test-database-names';

export default async function globalTeardown(): Promise<void> {
  const runId = process.env[TEST_DATABASE_ENV.runId];
  if (!runId) return;
  // Several projects may each run this teardown: the first one cleans, the others find nothing.
  delete process.env[TEST_DATABASE_ENV.runId];

  const pool = (globalThis as Record<symbol, PglitePool | undefined>)[POOL_GLOBAL];
  delete (globalThis as Record<symbol, unknown>)[POOL_GLOBAL];
  await pool?.stop();

  const serverUrl = process.env.DATABASE_URL?.trim();
  if (!serverUrl) return;
  await withAdminClient(serverUrl, async (admin) => {
    const { rows } = await admin.query<{ datname: string }>(
      'SELECT datname FROM pg_database WHERE starts_with(datname, $1)',
      [`${TEST_DATABASE_PREFIX}${runId}`],
    );
    for (const { datname } of rows) {
      await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    }
  });
}
