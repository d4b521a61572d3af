// migrateDatabase on an empty database: on the PostgreSQL server of DATABASE_URL when set (a new
// database of its own), on an in-memory PGlite otherwise.
import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { Client } from 'pg';
import { startInMemoryPostgres } from '../../../src/infrastructure/database/embedded-postgres';
import { MIGRATION_LOCK_KEY, migrateDatabase } from '../../../src/infrastructure/database/migrate-database';
import { migrationsDirectory } from '../../../src/infrastructure/database/package-root';
import {
  TEST_DATABASE_ENV,
  TEST_DATABASE_PREFIX,
  withAdminClient,
  withDatabase,
} from '../../support/test-database-names';
import { serverOnly } from '../../support/server-only';
import { waitFor } from '../../support/wait-for';

const serverUrl = process.env.DATABASE_URL?.trim();

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
  const server = await startInMemoryPostgres();
  return { connectionString: server.connectionString, close: () => server.stop() };
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

async function migrationNamesOnDisk(): Promise<string[]> {
  const entries = await readdir(migrationsDirectory(), { withFileTypes: true });
  return entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

// Starting PGlite (WebAssembly PostgreSQL) takes about two seconds; a migration run, a fraction.
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
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name",
    );
    expect(tables.map((row) => row.table_name)).toEqual(
      expect.arrayContaining(['accounts', 'api_keys', 'anchors', 'items', 'timelines', 'travellers', 'travels']),
    );
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
