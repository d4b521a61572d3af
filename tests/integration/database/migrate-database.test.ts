// migrateDatabase on an empty database: on the PostgreSQL server of DATABASE_URL when set (a new
// database of its own), on an in-memory PGlite otherwise.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import {
  MIGRATION_LOCK_KEY,
  MigrationFailed,
  migrateDatabase,
} from '../../../src/infrastructure/database/migrations/migrate-database';
import { MIGRATION_FILE, migrationNames } from '../../../src/infrastructure/database/migrations/migration-files';
import { migrationsDirectory } from '../../../src/infrastructure/database/migrations/package-root';
import type { DB } from '../../../src/infrastructure/persistence/kysely/generated/types';
import {
  TEST_DATABASE_ENV,
  TEST_DATABASE_PREFIX,
  withAdminClient,
  withDatabase,
} from '../../support/test-database-names';
import { serverOnly } from '../../support/server-only';
import { provisionBlankInMemoryDatabase } from '../../support/test-database';
import { waitFor } from '../../support/wait-for';

const serverUrl = process.env.DATABASE_URL?.trim();
/** Runs migrateDatabase on the database its argument names, in a process of its own. */
const MIGRATE_SCRIPT = path.join(__dirname, '../../support/migrate-process.ts');
/**
 * The schema's tables, checked by the compiler against what prisma/schema.prisma generates (Kysely's
 * `DB`): a table added to the schema and not here, or the reverse, fails the typecheck.
 */
const SCHEMA_TABLES = Object.keys({
  accounts: true,
  anchors: true,
  api_keys: true,
  event_manipulations: true,
  event_stream_slots: true,
  events: true,
  idempotency_keys: true,
  items: true,
  login_throttles: true,
  rate_limit_counters: true,
  service_secrets: true,
  sessions: true,
  timelines: true,
  travellers: true,
  travels: true,
  webhook_attempts: true,
  webhook_endpoints: true,
  webhook_messages: true,
  webhook_outbox: true,
} satisfies Record<keyof DB, true>);

interface EmptyDatabase {
  connectionString: string;
  close(): Promise<void>;
}

/** A database with nothing in it, not even the template's migrations. */
async function emptyDatabase(): Promise<EmptyDatabase> {
  if (serverUrl) {
    const name = `${TEST_DATABASE_PREFIX}${process.env[TEST_DATABASE_ENV.runId]}_${randomBytes(4).toString('hex')}`;
    await withAdminClient(serverUrl, (admin) => admin.query(`CREATE DATABASE "${name}"`));
    return {
      connectionString: withDatabase(serverUrl, name),
      async close() {
        await withAdminClient(serverUrl, (admin) => admin.query(`DROP DATABASE "${name}" WITH (FORCE)`));
      },
    };
  }
  return provisionBlankInMemoryDatabase();
}

async function query<T>(connectionString: string, sql: string): Promise<T[]> {
  const client = new Client({ connectionString });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

/** The migrations of this package, as the runner reads them. */
const migrationNamesOnDisk = () => migrationNames(migrationsDirectory());

// Starting PGlite (WebAssembly PostgreSQL) takes up to a few seconds on a busy machine.
jest.setTimeout(30_000);

describe('migrateDatabase', () => {
  let database: EmptyDatabase;

  beforeEach(async () => {
    database = await emptyDatabase();
  });

  afterEach(async () => {
    await database.close();
  });

  it('applies every migration once, with the bookkeeping of prisma migrate deploy, and then nothing', async () => {
    const expected = await migrationNamesOnDisk();

    const first = await migrateDatabase(database.connectionString);
    const second = await migrateDatabase(database.connectionString);

    expect(first.applied).toEqual(expected);
    expect(second.applied).toEqual([]);
    const recorded = await query<{ migration_name: string; finished_at: Date | null }>(
      database.connectionString,
      'SELECT migration_name, finished_at FROM _prisma_migrations ORDER BY migration_name',
    );
    expect(recorded.map((row) => row.migration_name)).toEqual(expected);
    expect(recorded.every((row) => row.finished_at !== null)).toBe(true);
    const tables = await query<{ table_name: string }>(
      database.connectionString,
      `SELECT table_name FROM information_schema.tables
        WHERE table_schema = 'public' AND table_name <> '_prisma_migrations' ORDER BY table_name`,
    );
    expect(tables.map((row) => row.table_name)).toEqual([...SCHEMA_TABLES].sort());
  });

  it('ends with statistics of the tables whose plans depend on them (ANALYZE)', async () => {
    await migrateDatabase(database.connectionString);

    const analysed = await query<{ relname: string }>(
      database.connectionString,
      'SELECT relname FROM pg_stat_user_tables WHERE last_analyze IS NOT NULL ORDER BY relname',
    );
    expect(analysed.map((row) => row.relname)).toEqual([
      'event_manipulations',
      'event_stream_slots',
      'events',
      'idempotency_keys',
      'items',
      'rate_limit_counters',
      'timelines',
    ] satisfies Array<keyof DB>);
  });

  it('applies the migrations exactly once when several clients migrate at the same time', async () => {
    // On a server, distinct connection strings (one per simulated service instance) bypass the
    // in-process queue, so only the advisory lock stands between the runs. PGlite has a single
    // session, where the in-process queue is what serialises.
    const clients = Array.from({ length: 4 }, (_, index) =>
      serverUrl ? withApplicationName(database.connectionString, `instance-${index}`) : database.connectionString,
    );

    const results = await Promise.all(clients.map((connectionString) => migrateDatabase(connectionString)));

    const expected = await migrationNamesOnDisk();
    expect(results.filter((result) => result.applied.length > 0).map((result) => result.applied)).toEqual([expected]);
    const counts = await query<{ count: string }>(
      database.connectionString,
      'SELECT count(*)::text AS count FROM _prisma_migrations',
    );
    expect(counts[0]?.count).toBe(String(expected.length));
  });

  it('applies again a migration that Prisma engine left unfinished, marking that run rolled back', async () => {
    const [first] = await migrationNamesOnDisk();
    // What Prisma's engine leaves when a start is killed before a migration's changes: its row
    // started and never finished (`migrate deploy` then refuses with P3009).
    await query(
      database.connectionString,
      `CREATE TABLE "_prisma_migrations" (
        "id" VARCHAR(36) PRIMARY KEY NOT NULL, "checksum" VARCHAR(64) NOT NULL, "finished_at" TIMESTAMPTZ,
        "migration_name" VARCHAR(255) NOT NULL, "logs" TEXT, "rolled_back_at" TIMESTAMPTZ,
        "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(), "applied_steps_count" INTEGER NOT NULL DEFAULT 0);
       INSERT INTO "_prisma_migrations" (id, checksum, migration_name) VALUES ('cut-short', 'x', '${first}')`,
    );

    const result = await migrateDatabase(database.connectionString);

    expect(result.applied).toEqual(await migrationNamesOnDisk());
    const rows = await query<{ id: string; rolled_back: boolean; finished: boolean }>(
      database.connectionString,
      `SELECT id, rolled_back_at IS NOT NULL AS rolled_back, finished_at IS NOT NULL AS finished
         FROM _prisma_migrations WHERE migration_name = '${first}' ORDER BY started_at`,
    );
    expect(rows.map(({ rolled_back, finished }) => ({ rolled_back, finished }))).toEqual([
      { rolled_back: true, finished: false },
      { rolled_back: false, finished: true },
    ]);
  });

  it('records the checksum prisma migrate deploy records: the SHA-256 of each file', async () => {
    await migrateDatabase(database.connectionString);
    const recorded = await query<{ migration_name: string; checksum: string; applied_steps_count: number }>(
      database.connectionString,
      'SELECT migration_name, checksum, applied_steps_count FROM _prisma_migrations ORDER BY migration_name',
    );
    const names = await migrationNamesOnDisk();
    const onDisk = await Promise.all(
      names.map(async (name) => ({
        migration_name: name,
        checksum: createHash('sha256')
          .update(await readFile(path.join(migrationsDirectory(), name, MIGRATION_FILE)))
          .digest('hex'),
        applied_steps_count: 1,
      })),
    );
    expect(recorded).toEqual(onDisk);
  });

  it('leaves a refused migration unapplied, and names it', async () => {
    const folder = await mkdtemp(path.join(tmpdir(), 'tns-migrations-'));
    try {
      await mkdir(path.join(folder, '1_good'));
      await writeFile(path.join(folder, '1_good', MIGRATION_FILE), 'CREATE TABLE kept (id int);');
      await mkdir(path.join(folder, '2_bad'));
      await writeFile(
        path.join(folder, '2_bad', MIGRATION_FILE),
        'CREATE TABLE half (id int);\nALTER TABLE no_such_table ADD COLUMN x int;',
      );
      await expect(migrateDatabase(database.connectionString, { migrationsDir: folder })).rejects.toThrow(
        /Migration 2_bad failed and was not applied .*no_such_table/,
      );
      const tables = await query<{ table_name: string }>(
        database.connectionString,
        "SELECT table_name FROM information_schema.tables WHERE table_name IN ('kept', 'half') ORDER BY 1",
      );
      // The first whole, the second not at all: not even its first statement.
      expect(tables.map((row) => row.table_name)).toEqual(['kept']);
      const recorded = await query<{ migration_name: string }>(
        database.connectionString,
        'SELECT migration_name FROM _prisma_migrations',
      );
      expect(recorded.map((row) => row.migration_name)).toEqual(['1_good']);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  serverOnly(() => {
    it('reports the migration that failed when its connection was lost, not the failed unlock', async () => {
      const folder = await mkdtemp(path.join(tmpdir(), 'tns-migrations-'));
      try {
        await mkdir(path.join(folder, '1_cut'));
        // The server ends the run's session in the middle of the migration, as a lost connection does.
        await writeFile(path.join(folder, '1_cut', MIGRATION_FILE), 'SELECT pg_terminate_backend(pg_backend_pid());');
        await expect(migrateDatabase(database.connectionString, { migrationsDir: folder })).rejects.toThrow(
          MigrationFailed,
        );
      } finally {
        await rm(folder, { recursive: true, force: true });
      }
    });

    it('leaves nothing of a migration whose run was killed in the middle, and the next run applies it', async () => {
      // Every migration applied, as the release before would have; then one more that changes a table,
      // as a next release's may: its statement waits behind a lock of every table (all but the
      // bookkeeping), after its row is written, and the run is killed there, inside its transaction.
      await migrateDatabase(database.connectionString);
      const next = await mkdtemp(path.join(tmpdir(), 'tns-migrations-'));
      const last = '99991231000000_killed_in_the_middle';
      try {
        await cp(migrationsDirectory(), next, { recursive: true });
        await mkdir(path.join(next, last));
        await writeFile(path.join(next, last, MIGRATION_FILE), 'ALTER TABLE "events" ADD COLUMN "probe" integer;\n');
        const holder = new Client({ connectionString: database.connectionString });
        await holder.connect();
        try {
          const { rows: tables } = await holder.query<{ tablename: string }>(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> '_prisma_migrations'",
          );
          await holder.query('BEGIN');
          await holder.query(
            `LOCK TABLE ${tables.map((table) => `"${table.tablename}"`).join(', ')} IN ACCESS EXCLUSIVE MODE`,
          );
          const run = spawn(process.execPath, ['--import', 'tsx', MIGRATE_SCRIPT, database.connectionString, next], {
            stdio: 'ignore',
          });
          const exited = new Promise((resolve) => run.once('exit', resolve));
          await waitFor(async () => (await sessionsAwaitingRelationLock(holder)) === 1, {
            what: 'the last migration to wait inside its transaction',
            timeoutMs: 20_000,
          });
          run.kill('SIGKILL');
          await exited;
          await holder.query('COMMIT');
        } finally {
          await holder.end();
        }
        const recorded = await query<{ migration_name: string }>(
          database.connectionString,
          `SELECT migration_name FROM _prisma_migrations WHERE migration_name = '${last}'`,
        );
        expect(recorded).toEqual([]);

        expect((await migrateDatabase(database.connectionString, { migrationsDir: next })).applied).toEqual([last]);
      } finally {
        await rm(next, { recursive: true, force: true });
      }
    });
  });

  // Advisory locks exclude the sessions of a PostgreSQL server. The embedded database is a single
  // session shared by its connections and serves one process, so there is nothing to wait for there:
  // this case exists only when the tests run on a server (as CI does).
  serverOnly(() => {
    it('waits while another session holds the migration lock', async () => {
      const holder = new Client({ connectionString: database.connectionString });
      await holder.connect();
      try {
        await holder.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
        let finished = false;
        const migration = migrateDatabase(database.connectionString).then((result) => {
          finished = true;
          return result;
        });
        await waitFor(async () => (await sessionsAwaitingAdvisoryLock(holder)) === 1, {
          what: 'the migration to wait for the advisory lock',
        });
        expect(finished).toBe(false);

        await holder.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
        expect((await migration).applied).toEqual(await migrationNamesOnDisk());
      } finally {
        await holder.end();
      }
    });
  });
});

/** Sessions on the client's database that wait for a table's lock. */
async function sessionsAwaitingRelationLock(client: Client): Promise<number> {
  // Inside a transaction the statistics are read once and kept: read them afresh each time.
  await client.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await client.query<{ waiting: number }>(
    `SELECT count(*)::int AS waiting FROM pg_stat_activity
      WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event = 'relation'`,
  );
  return rows[0]?.waiting ?? 0;
}

/** Sessions on the client's database that wait for an advisory lock, as the server reports them. */
async function sessionsAwaitingAdvisoryLock(client: Client): Promise<number> {
  const { rows } = await client.query<{ waiting: number }>(
    `SELECT count(*)::int AS waiting FROM pg_stat_activity
      WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event = 'advisory'`,
  );
  return rows[0]?.waiting ?? 0;
}

function withApplicationName(connectionString: string, name: string): string {
  const url = new URL(connectionString);
  url.searchParams.set('application_name', name);
  return url.toString();
}
