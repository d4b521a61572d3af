// Jest globalSetup: prepares, once per run, what provisionTestDatabase copies for each test file.
// Either way the database is as a service's start leaves it: migrated, and pg-boss's schema and the
// webhooks' queues installed (a write recording a webhook message makes its job there).
// - DATABASE_URL set: a template database, migrated; each test file then gets
//   `CREATE DATABASE ... TEMPLATE` (tens of milliseconds instead of a migration run each).
// - unset: snapshots of an in-memory PGlite, before the migrations (for the migration runner's own
//   tests) and after, served by a pool of warm threads in this process (pglite-pool.ts); a database
//   from a snapshot starts in a fraction of a second where initdb and the migrations take seconds.
import { randomBytes } from 'node:crypto';
import {
  type InMemoryPostgres,
  startInMemoryPostgres,
} from '../../src/infrastructure/database/embedded/embedded-postgres';
import { migrateDatabase } from '../../src/infrastructure/database/migrations/migrate-database';
import { installJobQueue } from '../../src/infrastructure/job-queue/job-queue';
import { POOL_GLOBAL, PglitePool, type PgliteSnapshots } from './pglite-pool';
import { TEST_DATABASE_ENV, TEST_DATABASE_PREFIX, withAdminClient, withDatabase } from './test-database-names';

export default async function globalSetup(): Promise<void> {
  // Several projects (integration, http) may each run this setup in one run: once is enough.
  if (process.env[TEST_DATABASE_ENV.runId]) return;
  const runId = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  process.env[TEST_DATABASE_ENV.runId] = runId;

  const serverUrl = process.env.DATABASE_URL?.trim();
  if (serverUrl) {
    const template = `${TEST_DATABASE_PREFIX}${runId}_template`;
    await withAdminClient(serverUrl, (admin) => admin.query(`CREATE DATABASE "${template}"`));
    // migrateDatabase and installJobQueue close all their connections: CREATE DATABASE ... TEMPLATE
    // requires that nobody is connected to the template.
    await migrateDatabase(withDatabase(serverUrl, template));
    await installJobQueue(withDatabase(serverUrl, template));
    process.env[TEST_DATABASE_ENV.template] = template;
    return;
  }

  const { pool, url } = await PglitePool.start(await takeSnapshots());
  (globalThis as Record<symbol, unknown>)[POOL_GLOBAL] = pool;
  process.env[TEST_DATABASE_ENV.poolUrl] = url;
}

/** A new in-memory PGlite, dumped before the migrations and after. */
async function takeSnapshots(): Promise<PgliteSnapshots> {
  const scratch = await startInMemoryPostgres();
  try {
    const blank = await snapshotOf(scratch);
    await migrateDatabase(scratch.connectionString);
    await installJobQueue(scratch.connectionString);
    return { blank, migrated: await snapshotOf(scratch) };
  } finally {
    await scratch.stop();
  }
}

async function snapshotOf(database: InMemoryPostgres): Promise<Uint8Array> {
  return new Uint8Array(await (await database.dump()).arrayBuffer());
}
