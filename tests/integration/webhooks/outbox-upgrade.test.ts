// An upgrade across migration 20261130070000_webhook_outbox_carries_messages, on a real PGlite
// whatever DATABASE_URL says: a message an earlier release recorded (its row, and an outbox row
// pointing at it) and not yet relayed is carried by its outbox row afterwards, and the relay makes
// the same message again, with its id and subject, and its job.
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createDatabaseClients } from '../../../src/infrastructure/database/driver/prisma-client';
import { startInMemoryPostgres } from '../../../src/infrastructure/database/embedded/embedded-postgres';
import { migrateDatabase } from '../../../src/infrastructure/database/migrations/migrate-database';
import { migrationNames } from '../../../src/infrastructure/database/migrations/migration-files';
import { migrationsDirectory } from '../../../src/infrastructure/database/migrations/package-root';
import { installJobQueue } from '../../../src/infrastructure/job-queue/job-queue';
import { DELIVERY_QUEUE } from '../../../src/infrastructure/job-queue/queues';
import { PostgresWebhookMessages } from '../../../src/infrastructure/persistence/postgres/webhook-messages';

// Starting PGlite (WebAssembly PostgreSQL) takes seconds on a busy machine.
jest.setTimeout(120_000);

const CARRYING = '20261130070000_webhook_outbox_carries_messages';

it('carries a message recorded before the upgrade in its outbox row, and relays it as it was', async () => {
  const server = await startInMemoryPostgres();
  const { prisma, sql } = createDatabaseClients(server.connectionString, { maxConnections: 1 });
  const earlier = await mkdtemp(path.join(tmpdir(), 'tns-migrations-'));
  try {
    // The release before: every migration up to this one.
    const names = await migrationNames(migrationsDirectory());
    for (const name of names.slice(0, names.indexOf(CARRYING)))
      await cp(path.join(migrationsDirectory(), name), path.join(earlier, name), { recursive: true });
    await migrateDatabase(server.connectionString, { migrationsDir: earlier });
    await installJobQueue(server.connectionString);
    await sql.query(
      `INSERT INTO accounts (id, email, password_hash, created_at) VALUES ('acc_1', 'a@example.com', 'x', now())`,
      [],
    );
    await sql.query(
      `INSERT INTO webhook_endpoints (account_id, id, url, event_types, status, secret, created_at)
       VALUES ('acc_1', 'whk_1', 'https://hooks.example/in', '{event.recorded}', 'enabled', 'whsec_c2VjcmV0', now())`,
      [],
    );
    await sql.query(
      `INSERT INTO events (account_id, id, timeline_id, kind, time, original_time, description, location,
                           description_key, location_key, recorded_at, revision)
       VALUES ('acc_1', 'evt_1', 'primary', 'arrival', now(), now(), 'Arrival', 'home', 'd', 'l', now(), 0)`,
      [],
    );
    const message = `SELECT id, endpoint_id, event_type, subject, created_at, state FROM webhook_messages`;
    const [before] = await sql.query<{ id: string; subject: { id: string }; created_at: Date }>(message, []);
    expect(before?.subject.id).toBe('evt_1');

    expect((await migrateDatabase(server.connectionString)).applied).toEqual(names.slice(names.indexOf(CARRYING)));

    expect(await sql.query(message, [])).toEqual([]);
    expect(
      await sql.query(`SELECT message_id, endpoint_id, event_type, subject, created_at FROM webhook_outbox`, []),
    ).toEqual([
      {
        message_id: before?.id,
        endpoint_id: 'whk_1',
        event_type: 'event.recorded',
        subject: before?.subject,
        created_at: before?.created_at,
      },
    ]);
    expect(await new PostgresWebhookMessages(sql).relay(8, 500)).toBe(1);
    expect(await sql.query(message, [])).toEqual([before]);
    const jobs = await sql.query<{ data: unknown }>(`SELECT data FROM pgboss.job WHERE name = $1`, [DELIVERY_QUEUE]);
    expect(jobs).toEqual([{ data: { accountId: 'acc_1', messageId: before?.id } }]);
  } finally {
    await rm(earlier, { recursive: true, force: true });
    await prisma.$disconnect();
    await server.stop();
  }
});
