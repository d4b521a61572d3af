// npm run db:studio [-- <prisma studio options, e.g. --port 5555 --browser none>]
//
// Prisma Studio on the service's database:
// - DATABASE_DIRECT_URL or DATABASE_URL set: that server (the direct one behind a pooler);
// - otherwise the embedded database in DATA_DIR (default ./.data): if the service is running in
//   embedded mode, through the server it announces in <DATA_DIR>/connection-url (PGlite allows one
//   process per data directory, so Studio cannot open the files itself); if not, this script
//   starts the embedded server (migrated) for as long as Studio runs.
// The URL reaches Studio in its environment (prisma.config.ts reads DATABASE_URL), never on its command
// line, where any local user reads it with `ps`; what this prints names the server, not the password.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from 'pg';
import {
  CONNECTION_URL_FILE,
  startEmbeddedPostgres,
  type EmbeddedPostgres,
} from '../src/infrastructure/database/embedded/embedded-postgres';
import { migrateDatabase } from '../src/infrastructure/database/migrations/migrate-database';
import { DEFAULT_DATA_DIR } from '../src/infrastructure/database/open-database';
import { describeServer } from '../src/infrastructure/database/driver/describe-server';

async function main(): Promise<number> {
  // The server itself when a pooler is in front: Studio prepares statements, which a pooler in
  // transaction mode does not keep.
  const databaseUrl = process.env.DATABASE_DIRECT_URL?.trim() || process.env.DATABASE_URL?.trim();
  if (databaseUrl) return runStudio(databaseUrl);

  const dataDir = path.resolve(process.env.DATA_DIR?.trim() || DEFAULT_DATA_DIR);
  const runningUrl = await runningServiceUrl(path.join(dataDir, CONNECTION_URL_FILE));
  if (runningUrl) {
    // Studio's connections and the service's take turns on PGlite's one session, an exchange at a
    // time (pglite-wire-server.ts); a long Studio query makes the service's requests wait.
    console.log(`Using the embedded database of the running service (${describeServer(runningUrl)}).`);
    return runStudio(runningUrl);
  }

  const server: EmbeddedPostgres = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'pgdata') });
  try {
    await migrateDatabase(server.connectionString);
    console.log(`Started the embedded database in ${dataDir} for Studio (${describeServer(server.connectionString)}).`);
    return await runStudio(server.connectionString);
  } finally {
    await server.stop();
  }
}

/** The URL in connection-url if a server answers there; null when there is no live one. */
async function runningServiceUrl(file: string): Promise<string | null> {
  let url: string;
  try {
    url = (await readFile(file, 'utf8')).trim();
  } catch (error) {
    if (typeof error === 'object' && error !== null && 'code' in error && error.code === 'ENOENT') return null;
    throw error;
  }
  // A service killed without a clean stop leaves the file behind: check that someone answers.
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
  } catch (error) {
    console.log(`Ignoring ${file}: nothing answers at ${describeServer(url)} (${String(error)}).`);
    return null;
  }
  await client.end();
  return url;
}

/** Runs Prisma Studio until it exits (Ctrl-C reaches it too); resolves with its exit code. */
function runStudio(url: string): Promise<number> {
  const offlineCli = path.join(__dirname, 'prisma-offline.js');
  const child = spawn(process.execPath, [offlineCli, 'studio', ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, DATABASE_URL: url },
  });
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      resolve(code ?? (signal ? 0 : 1));
    });
  });
}

// Explicit exit: whatever the embedded server leaves running must not hold the process once Studio ends.
main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
