// Applies prisma/migrations to a database at start-up, with the bookkeeping of
// `prisma migrate deploy` (table _prisma_migrations), so a database migrated by either can later
// be migrated by the other.
import { readFile } from 'node:fs/promises';
import { Client } from 'pg';
import { readMigrationsFolder } from './migrations-folder';
import { migrationsDirectory, schemaPath } from './package-root';
import { NO_EXTERNAL_OBJECTS, openSchemaEngine } from './schema-engine';

/**
 * Key of the PostgreSQL advisory lock that serialises migration runs. Several instances of the
 * service may start at once against one database; the lock makes the first one migrate while the
 * others wait, and then find nothing left to apply. An arbitrary constant, distinct from the key
 * Prisma's own engine uses (72707369), so the two never wait for each other.
 */
export const MIGRATION_LOCK_KEY = '7315201938475562091';

/**
 * Runs of this process, per database. An advisory lock excludes other *sessions*; the embedded
 * PGlite server has one session shared by all its connections, so there the lock excludes
 * nothing and this in-process queue serialises the runs instead (other processes cannot open the
 * embedded database at all: see data-dir-lock.ts).
 */
const runsInThisProcess = new Map<string, Promise<unknown>>();

export interface MigrationResult {
  /** Names of the migrations this call applied, in order; empty when the database was up to date. */
  applied: string[];
}

export interface MigrationSource {
  /** Default: prisma/migrations of this package. */
  migrationsDir?: string;
  /** Default: prisma/schema.prisma of this package. The engine refuses to run without a schema. */
  schemaFile?: string;
}

export async function migrateDatabase(
  connectionString: string,
  source: MigrationSource = {},
): Promise<MigrationResult> {
  const migrationsDir = source.migrationsDir ?? migrationsDirectory();
  const schemaFile = source.schemaFile ?? schemaPath();
  const previous = runsInThisProcess.get(connectionString) ?? Promise.resolve();
  // Waits for the previous run whatever its outcome: its failure is reported to its own caller.
  const run = previous.then(
    () => migrateUnderAdvisoryLock(connectionString, migrationsDir, schemaFile),
    () => migrateUnderAdvisoryLock(connectionString, migrationsDir, schemaFile),
  );
  runsInThisProcess.set(connectionString, run);
  try {
    return await run;
  } finally {
    if (runsInThisProcess.get(connectionString) === run) runsInThisProcess.delete(connectionString);
  }
}

async function migrateUnderAdvisoryLock(
  connectionString: string,
  migrationsDir: string,
  schemaFile: string,
): Promise<MigrationResult> {
  // A dedicated connection holds the lock: the engine opens and closes its own connections, and
  // a session-level advisory lock lives exactly as long as the session that took it.
  const lockConnection = new Client({ connectionString });
  await lockConnection.connect();
  try {
    await lockConnection.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      // Read under the lock, so that the migrations applied are the ones on disk now.
      const migrationsList = await readMigrationsFolder(migrationsDir);
      const schema = await readFile(schemaFile, 'utf8');
      const { engine, close } = await openSchemaEngine(connectionString, [[schemaFile, schema]]);
      try {
        const output = await engine.applyMigrations({ migrationsList, filters: NO_EXTERNAL_OBJECTS });
        return { applied: output.appliedMigrationNames };
      } finally {
        await close();
      }
    } finally {
      await lockConnection.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    await lockConnection.end();
  }
}
