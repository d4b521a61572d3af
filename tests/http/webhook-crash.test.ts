// Webhook deliveries survive kill -9 of the service on the embedded database (PGlite, in a data
// folder): every message arrives at least once after a fresh start, the same webhook-id and body,
// and only those in flight at the kill arrive twice (tests/support/webhook-delivery/crash-scenario.ts).
// On PostgreSQL with two worker processes: webhook-crash.server.test.ts.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { CONNECTION_URL_FILE } from '../../src/infrastructure/database/embedded/embedded-postgres';
import { type CrashStore, deliveriesSurviveKill } from '../support/webhook-delivery/crash-scenario';

it('delivers every message after kill -9 of the service on the embedded database', async () => {
  const folder = await mkdtemp(join(tmpdir(), 'tns-webhook-crash-'));
  const store: CrashStore = {
    // The embedded database, whatever the environment names: no DATABASE_URL.
    env: { DATABASE_URL: '', DATA_DIR: folder },
    // The running service serves its database on a port it writes down (embedded-postgres.ts).
    async query<T>(text: string, params: readonly unknown[]) {
      const client = new Client({
        connectionString: (await readFile(join(folder, CONNECTION_URL_FILE), 'utf8')).trim(),
      });
      await client.connect();
      try {
        return (await client.query(text, [...params])).rows as T[];
      } finally {
        await client.end();
      }
    },
  };
  try {
    await deliveriesSurviveKill(store, { processes: 1 });
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}, 240_000);
