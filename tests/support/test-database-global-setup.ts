// Jest globalSetup: prepares, once per run, what provisionTestDatabase copies for each test file.
// - DATABASE_URL set: a template database, migrated; each test file then gets
//   `CREATE DATABASE ... TEMPLATE` (tens of milliseconds instead of a migration run each).
// - unset: a snapshot of a migrated in-memory PGlite in a temporary file; starting from it takes
//   about 0.3 s instead of about 2.5 s (initdb + migration). And one before the migrations, for the
//   migration runner's own tests.
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type InMemoryPostgres, startInMemoryPostgres } from '../../src/infrastructure/database/embedded-postgres';
import { migrateDatabase } from '../../src/infrastructure/database/migrate-database';
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
    // migrateDatabase closes all its connections: CREATE DATABASE ... TEMPLATE requires that
    // nobody is connected to the template.
    await migrateDatabase(withDatabase(serverUrl, template));
    process.env[TEST_DATABASE_ENV.template] = template;
    return;
  }

  const scratch = await startInMemoryPostgres();
  try {
    await snapshot(scratch, TEST_DATABASE_ENV.blankSnapshotFile, `${TEST_DATABASE_PREFIX}${runId}_blank.pglite`);
    await migrateDatabase(scratch.connectionString);
    await snapshot(scratch, TEST_DATABASE_ENV.snapshotFile, `${TEST_DATABASE_PREFIX}${runId}.pglite`);
  } finally {
    await scratch.stop();
  }
}

async function snapshot(database: InMemoryPostgres, variable: string, name: string): Promise<void> {
  const file = path.join(tmpdir(), name);
  await writeFile(file, Buffer.from(await (await database.dump()).arrayBuffer()));
  process.env[variable] = file;
}
