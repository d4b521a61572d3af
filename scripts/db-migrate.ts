// npm run db:migrate
//
// Applies prisma/migrations to DATABASE_DIRECT_URL (the server behind a pooler) or DATABASE_URL,
// or, when both are unset, to the embedded database in DATA_DIR (default ./.data). The service
// does the same when it starts; this is for applying a new migration without starting it. Uses
// the service's own runner (migrate-database.ts), with the bookkeeping of `prisma migrate deploy`.
import path from 'node:path';
import { startEmbeddedPostgres } from '../src/infrastructure/database/embedded/embedded-postgres';
import { migrateDatabase } from '../src/infrastructure/database/migrations/migrate-database';
import { DEFAULT_DATA_DIR } from '../src/infrastructure/database/open-database';

async function main(): Promise<void> {
  // The migrations' advisory lock needs a session of its own, which a pooler does not keep.
  const setting = process.env.DATABASE_DIRECT_URL?.trim() ? 'DATABASE_DIRECT_URL' : 'DATABASE_URL';
  const serverUrl = process.env[setting]?.trim();
  if (serverUrl) {
    report(await migrateDatabase(serverUrl), setting);
    return;
  }
  const dataDir = path.join(path.resolve(process.env.DATA_DIR?.trim() || DEFAULT_DATA_DIR), 'pgdata');
  // Refused with a clear message while the service runs on the same directory; it migrates
  // the database itself when it starts.
  const server = await startEmbeddedPostgres({ dataDir });
  try {
    report(await migrateDatabase(server.connectionString), `the embedded database in ${dataDir}`);
  } finally {
    await server.stop();
  }
}

function report(result: { applied: string[] }, target: string): void {
  if (result.applied.length === 0) {
    console.log(`No pending migration: ${target} is up to date.`);
    return;
  }
  console.log(`Applied to ${target}:\n${result.applied.map((name) => `  ${name}`).join('\n')}`);
}

// Explicit exit: whatever the embedded server leaves running must not hold the process once the
// work is done.
main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
