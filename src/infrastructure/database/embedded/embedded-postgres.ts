// The embedded PostgreSQL used when no DATABASE_URL is configured: PGlite (PostgreSQL compiled to
// WebAssembly, running inside this process, on a thread of its own: pglite-supervisor.ts) served
// over a local TCP socket (pglite-wire-server.ts).
//
// Why a socket instead of PGlite's own Prisma adapter: over the wire protocol the service, the
// migrations and Prisma Studio all use the same @prisma/adapter-pg path as against a real
// server, so embedded mode exercises exactly the code production runs.
//
// What PGlite cannot do, and how we compensate:
// - PGlite is ONE PostgreSQL backend, i.e. one session. The server accepts several client
//   connections and lets one at a time run an exchange (an extended-protocol query up to its Sync,
//   or a whole transaction block), so their statements do not interleave; the others wait. Session
//   state (SET, advisory locks, temporary tables, named prepared statements) is still shared by all
//   connections. Hence the service's pool holds a single connection in embedded mode (see
//   EMBEDDED_POOL_SIZE), and pg_advisory_lock excludes nothing between two connections here.
// - PGlite's data directory has no postmaster.pid: two processes opening it would both write and
//   corrupt it. A lock file beside the directory makes the second start fail instead.
// - PGlite's memory is one WebAssembly memory, which never shrinks: what PostgreSQL takes once stays
//   resident for the life of the process. Hence the memory settings below (EMBEDDED_SETTINGS).
import { randomBytes } from 'node:crypto';
import type { Dirent } from 'node:fs';
import { chmod, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { acquireDataDirLock } from './data-dir-lock';
import type { PgliteSource } from './pglite-module';
import { PgliteSupervisor, type SupervisorLog } from './pglite-supervisor';

/** Pool size for any client of the embedded server that may run queries concurrently. */
export const EMBEDDED_POOL_SIZE = 1;

/**
 * Connections the server accepts at once: the service's pool (1), its job queue's (1), the migration
 * run at start-up (1), Prisma Studio (its postgres.js pool opens up to 10) and a psql, with room to
 * spare. A connection beyond this is refused with "too many clients" (53300).
 */
export const MAX_SOCKET_CONNECTIONS = 17;

/**
 * PostgreSQL settings of the embedded database, where PGlite keeps a server's defaults. Its shared
 * memory is allocated and zeroed at start inside its WebAssembly memory, so all of shared_buffers
 * (128MB by default) is resident from the first moment; 16MB holds the pages a development database
 * works on, and the files behind them stay in the kernel's page cache, outside the process. An index
 * build (a migration's CREATE INDEX on a filled table) takes up to maintenance_work_mem (64MB by
 * default), and the WebAssembly memory keeps it. Figures: docs/operations.md#the-embedded-database.
 */
export const EMBEDDED_SETTINGS: Readonly<Record<string, string>> = {
  shared_buffers: '16MB',
  maintenance_work_mem: '16MB',
};

/**
 * Given at every start, so that a data folder made before keeps no other value, and to initdb, whose
 * temporary PostgreSQL then runs with them too (and writes them to postgresql.conf).
 */
export const EMBEDDED_SETTING_FLAGS: readonly string[] = Object.entries(EMBEDDED_SETTINGS).flatMap(([name, value]) => [
  '-c',
  `${name}=${value}`,
]);

/** Name of the file, beside the data directory, that holds the URL of the running server. */
export const CONNECTION_URL_FILE = 'connection-url';

export interface EmbeddedPostgres {
  connectionString: string;
  /** Why the database does not answer now (it is being started again), or null while it does. */
  trouble(): string | null;
  stop(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  /** Where PGlite keeps its files. Default ./.data/pgdata (relative to the working directory). */
  dataDir?: string;
  /** TCP port on 127.0.0.1; default 0, any free port. */
  port?: number;
  /** Where the database's own events go: stopping answering, answering again. Default: the console. */
  log?: SupervisorLog;
}

const CONSOLE_LOG: SupervisorLog = {
  info: (fields, message) => console.log(message, fields),
  warn: (fields, message) => console.warn(message, fields),
  error: (fields, message) => console.error(message, fields),
};

export const DEFAULT_EMBEDDED_DATA_DIR = path.join('.data', 'pgdata');

/**
 * Starts PGlite on `dataDir` (created on first use) and serves it on 127.0.0.1. While it runs,
 * `<parent of dataDir>/connection-url` holds its URL so that tools (npm run db:studio) can reach
 * the database the service is using; stop() removes it.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions = {}): Promise<EmbeddedPostgres> {
  const dataDir = path.resolve(options.dataDir ?? DEFAULT_EMBEDDED_DATA_DIR);
  const home = path.dirname(dataDir);
  await keepPrivate(home, dataDir);
  const lock = await acquireDataDirLock(dataDir);
  if (lock.tookOverFrom)
    console.log(
      `The last process on ${dataDir} (pid ${lock.tookOverFrom.pid}) ended without stopping: ` +
        'PostgreSQL recovers the folder from its write-ahead log as it starts.',
    );
  try {
    const served = await serve({ dataDir }, options.port ?? 0, options.log ?? CONSOLE_LOG);
    const urlFile = path.join(path.dirname(dataDir), CONNECTION_URL_FILE);
    try {
      await chmodTree(dataDir);
      // Made anew: one a crash left behind may have an older release's mode.
      await rm(urlFile, { force: true });
      await writeFile(urlFile, `${served.connectionString}\n`, { mode: 0o600 });
    } catch (error) {
      await served.stop();
      throw error;
    }
    return {
      connectionString: served.connectionString,
      trouble: served.trouble,
      async stop() {
        try {
          await rm(urlFile, { force: true });
          await served.stop();
        } finally {
          await lock.release();
        }
      },
    };
  } catch (error) {
    await lock.release();
    throw error;
  }
}

/**
 * What the service keeps is its owner's alone, whatever the umask it was started with: the data
 * folder (made 0700 when the service makes it), PGlite's folder and everything in it (folders 0700,
 * files 0600, those of earlier releases included), and the files beside it (connection-url, the
 * lock: 0600). PGlite makes its files 0666 whatever the umask, so its folder is tightened again once
 * it is ready (initdb's files); a file it makes later is inside a folder no one else may enter.
 * Another local user can then read nothing of the database, nor connection-url's password. A
 * DATA_DIR that already exists keeps its own mode: it may be a folder the service does not own alone.
 */
async function keepPrivate(home: string, dataDir: string): Promise<void> {
  await mkdir(home, { recursive: true, mode: 0o700 });
  await chmodTree(dataDir);
}

/** `folder` and everything in it owner-only; nothing when it does not exist yet. */
async function chmodTree(folder: string): Promise<void> {
  let entries: Dirent[];
  try {
    entries = await readdir(folder, { withFileTypes: true });
  } catch (error) {
    if (typeof error === 'object' && error !== null && 'code' in error && error.code === 'ENOENT') return;
    throw error;
  }
  await chmod(folder, 0o700);
  for (const entry of entries) {
    const file = path.join(folder, entry.name);
    if (entry.isDirectory()) await chmodTree(file);
    else if (entry.isFile()) await chmod(file, 0o600);
  }
}

export interface InMemoryPostgres extends EmbeddedPostgres {
  /** A snapshot of the whole database, to start other in-memory databases from. */
  dump(): Promise<Blob>;
}

/**
 * A throwaway database kept in memory, served like the persistent one: for tests, and for
 * computing migrations from a scratch copy of the schema. Starting from `initialData` (a dump())
 * takes about 0.3 s where creating an empty database (initdb) takes about 2 s.
 */
export async function startInMemoryPostgres(options: { initialData?: Blob } = {}): Promise<InMemoryPostgres> {
  const initialData = await options.initialData?.arrayBuffer();
  const served = await serve({ inMemory: true, initialData }, 0, CONSOLE_LOG);
  return { ...served, dump: async () => new Blob([await served.supervisor.dump()]) };
}

async function serve(
  source: PgliteSource,
  port: number,
  log: SupervisorLog,
): Promise<EmbeddedPostgres & { supervisor: PgliteSupervisor }> {
  // New at each start, known only to this process and, through connection-url (0600), its owner.
  const password = randomBytes(24).toString('base64url');
  const supervisor = new PgliteSupervisor(
    {
      source,
      settings: EMBEDDED_SETTING_FLAGS,
      host: '127.0.0.1',
      port,
      maxConnections: MAX_SOCKET_CONNECTIONS,
      password,
    },
    log,
  );
  const address = await supervisor.start();
  let stopped: Promise<void> | undefined;
  return {
    supervisor,
    connectionString: `postgresql://postgres:${password}@${address}/postgres?sslmode=disable`,
    trouble: () => supervisor.trouble,
    stop() {
      stopped ??= supervisor.stop();
      return stopped;
    },
  };
}
