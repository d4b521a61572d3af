// Applies prisma/migrations to a database at start-up, with the bookkeeping of
// `prisma migrate deploy` (table _prisma_migrations, the same checksums), so a database migrated
// by either can later be migrated by the other. Each migration and its row are one transaction: a
// start killed at any moment leaves each migration applied whole or not at all
// (docs/decisions.md, "Migrations at start").
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { type Migration, readMigrations } from './migration-files';
import { migrationsDirectory } from './package-root';

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
  /** Told of each migration once it is applied (committed), in order. */
  onApplied?: (migration: string) => void;
}

/**
 * The start's line for a migration applied (MigrationSource.onApplied), on standard output with the
 * start's other lines: a first start, or an upgrade, says what it did to the database.
 */
export function announceMigration(migration: string): void {
  console.log(`Applied migration ${migration}`);
}

/** A migration PostgreSQL refused: nothing of it was applied, and the database is as it was. */
export class MigrationFailed extends Error {
  constructor(
    readonly migration: string,
    cause: unknown,
  ) {
    super(`Migration ${migration} failed and was not applied (the database is as before it): ${messageOf(cause)}`, {
      cause,
    });
    this.name = 'MigrationFailed';
  }
}

/** Prisma's table, as `prisma migrate deploy` creates it. */
const BOOKKEEPING = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

export async function migrateDatabase(
  connectionString: string,
  source: MigrationSource = {},
): Promise<MigrationResult> {
  const migrationsDir = source.migrationsDir ?? migrationsDirectory();
  const onApplied = source.onApplied ?? (() => undefined);
  const previous = runsInThisProcess.get(connectionString) ?? Promise.resolve();
  // Waits for the previous run whatever its outcome: its failure is reported to its own caller.
  const run = previous.then(
    () => migrateUnderAdvisoryLock(connectionString, migrationsDir, onApplied),
    () => migrateUnderAdvisoryLock(connectionString, migrationsDir, onApplied),
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
  onApplied: (migration: string) => void,
): Promise<MigrationResult> {
  // A session-level advisory lock lives exactly as long as the session that took it: a process
  // killed while it holds the lock leaves nothing locked.
  const client = new Client({ connectionString });
  // node-postgres also emits a lost connection as an 'error' event, which unheard ends the process;
  // the statement running or sent next fails with it, and that failure is what the run reports.
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    let succeeded = false;
    try {
      // Read under the lock, so that the migrations applied are the ones on disk now.
      const migrations = await readMigrations(migrationsDir);
      await client.query(BOOKKEEPING);
      const applied = await appliedMigrations(client);
      const appliedNow: string[] = [];
      for (const migration of migrations) {
        if (applied.has(migration.name)) continue;
        await applyMigration(client, migration);
        appliedNow.push(migration.name);
        onApplied(migration.name);
      }
      succeeded = true;
      return { applied: appliedNow };
    } finally {
      // Given back here rather than left to the session's end: the embedded server's one session
      // outlives this connection. After a failure, the unlock fails too when the connection died
      // with it (and so did the session, and its lock): the failure that says what went wrong wins.
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch((error: unknown) => {
        if (succeeded) throw error;
      });
    }
  } finally {
    await client.end();
  }
}

/** Migrations finished and not rolled back, as `prisma migrate deploy` counts them. */
async function appliedMigrations(client: Client): Promise<Set<string>> {
  const { rows } = await client.query<{ migration_name: string }>(
    'SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
  );
  return new Set(rows.map((row) => row.migration_name));
}

/**
 * The migration and its row in one transaction. A row left unfinished by an earlier run that was
 * cut short (Prisma's engine applies a migration outside a transaction) is marked rolled back in
 * the same transaction, as `prisma migrate resolve --rolled-back` would, and the migration applied
 * again: if that run had changed something, applying it again fails and says so.
 */
async function applyMigration(client: Client, migration: Migration): Promise<void> {
  const id = randomUUID();
  await client.query('BEGIN');
  try {
    await client.query(
      `UPDATE _prisma_migrations SET rolled_back_at = now()
       WHERE migration_name = $1 AND finished_at IS NULL AND rolled_back_at IS NULL`,
      [migration.name],
    );
    await client.query(
      `INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at, applied_steps_count)
       VALUES ($1, $2, $3, clock_timestamp(), 0)`,
      [id, migration.checksum, migration.name],
    );
    // No parameters: sent as one simple query, so a file of several statements runs whole.
    await client.query(migration.sql);
    await client.query(
      'UPDATE _prisma_migrations SET finished_at = clock_timestamp(), applied_steps_count = 1 WHERE id = $1',
      [id],
    );
    await client.query('COMMIT');
  } catch (error) {
    // A ROLLBACK that fails leaves nothing applied either: it fails only on a connection already
    // lost, whose transaction PostgreSQL (or the embedded server, for a client gone) rolled back.
    // Its error would only hide the migration's.
    await client.query('ROLLBACK').catch(() => undefined);
    throw new MigrationFailed(migration.name, error);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
