// What recording webhook messages costs a write of an account without an endpoint: the trigger's
// one probe of the endpoints' primary key, whatever the statement wrote, and nothing else of the
// webhooks' tables; the same trigger's NOTIFY only for an account with a stream open. Read off
// PostgreSQL's own counts of the transaction's scans (pg_stat_xact_user_tables), with endpoints
// enough for the planner to choose as it will in service.
// Needs a server (DATABASE_URL): the seed writes through a connection of its own.
import { Client } from 'pg';
import { provisionTestDatabase, type TestDatabase } from '../../support/test-database';

jest.setTimeout(60_000);

const ACCOUNTS_WITH_ENDPOINTS = 2_000;

let database: TestDatabase;
let client: Client;

beforeAll(async () => {
  database = await provisionTestDatabase();
  client = new Client({ connectionString: database.connectionString });
  await client.connect();
  await client.query(
    `INSERT INTO accounts (id, email, password_hash, created_at)
     SELECT 'acc_' || n, 'user' || n || '@example.com', 'hash', now() FROM generate_series(0, $1) AS n`,
    [ACCOUNTS_WITH_ENDPOINTS],
  );
  await client.query(
    `INSERT INTO webhook_endpoints (account_id, id, url, event_types, status, secret, created_at)
     SELECT 'acc_' || n, 'whk_' || n, 'https://hooks.example/' || n, '{event.recorded,event.updated}', 'enabled',
            'whsec_c2VjcmV0', now()
       FROM generate_series(1, $1) AS n`,
    [ACCOUNTS_WITH_ENDPOINTS],
  );
  await client.query('ANALYZE webhook_endpoints');
});
afterAll(async () => {
  await client?.end();
  await database?.close();
});

interface Scans {
  readonly relname: string;
  readonly seq_scan: number;
  readonly idx_scan: number;
  readonly n_tup_ins: number;
}

/** This transaction's scans and inserts of the webhooks' tables so far. */
async function scans(): Promise<Record<string, Scans>> {
  const { rows } = await client.query<Scans>(
    `SELECT relname, seq_scan::int, coalesce(idx_scan, 0)::int AS idx_scan, n_tup_ins::int
       FROM pg_stat_xact_user_tables WHERE relname IN ('webhook_endpoints', 'webhook_messages', 'webhook_outbox')`,
  );
  return Object.fromEntries(rows.map((row) => [row.relname, row]));
}

/** `count` events of `accountId` in one statement, in the transaction under way. */
async function writeEvents(accountId: string, count: number, prefix: string): Promise<void> {
  await client.query(
    `INSERT INTO events (account_id, id, timeline_id, kind, time, original_time, description, location,
                         description_key, location_key, recorded_at, revision)
     SELECT $1, $3 || n, 'primary', 'arrival', now(), now(), 'Arrival', 'home', 'd', 'l', now(), 0
       FROM generate_series(1, $2) AS n`,
    [accountId, count, prefix],
  );
}

it('costs a write of an account without an endpoint one index probe per statement, and no message', async () => {
  await client.query('BEGIN');
  try {
    const before = await scans();
    await writeEvents('acc_0', 5, 'evt_plain_');
    await client.query(`UPDATE events SET time = time + interval '1 minute', revision = 1 WHERE account_id = 'acc_0'`);
    const after = await scans();

    expect(after.webhook_endpoints.idx_scan - before.webhook_endpoints.idx_scan).toBe(2);
    expect(after.webhook_endpoints.seq_scan - before.webhook_endpoints.seq_scan).toBe(0);
    expect(after.webhook_messages.n_tup_ins - before.webhook_messages.n_tup_ins).toBe(0);
    expect(after.webhook_outbox.n_tup_ins - before.webhook_outbox.n_tup_ins).toBe(0);
  } finally {
    await client.query('ROLLBACK');
  }
});

it('records, for an account with an endpoint, one outbox row per event, the endpoints read by index', async () => {
  await client.query('BEGIN');
  try {
    const before = await scans();
    await writeEvents('acc_7', 5, 'evt_hooked_');
    const after = await scans();

    expect(after.webhook_endpoints.seq_scan - before.webhook_endpoints.seq_scan).toBe(0);
    // The message's own row is the relay's to write, off the write's statement.
    expect(after.webhook_outbox.n_tup_ins - before.webhook_outbox.n_tup_ins).toBe(5);
    expect(after.webhook_messages.n_tup_ins - before.webhook_messages.n_tup_ins).toBe(0);
  } finally {
    await client.query('ROLLBACK');
  }
});

it('announces to the event streams, in the same trigger, only the writes of accounts with a stream open', async () => {
  const listener = new Client({ connectionString: database.connectionString });
  await listener.connect();
  try {
    const heard: string[] = [];
    listener.on('notification', (message) => heard.push(message.payload ?? ''));
    await listener.query('LISTEN event_changes');
    // The watched account's two statements, each announced once.
    const watched = new Promise<void>((resolve) =>
      listener.on(
        'notification',
        () => heard.filter((payload) => payload.startsWith('acc_2 ')).length === 2 && resolve(),
      ),
    );
    await client.query(
      `INSERT INTO event_stream_slots (account_id, slot, api_key_id, holder, expires_at)
       VALUES ('acc_2', 0, 'key_watching', 'holder_1', now() + interval '1 minute'),
              ('acc_3', 0, 'key_lapsed', 'holder_2', now() - interval '1 minute')`,
    );
    // Committed in this order, so heard in this order: the unwatched and lapsed ones first, if at all.
    await writeEvents('acc_1', 2, 'evt_unwatched_');
    await writeEvents('acc_3', 2, 'evt_lapsed_');
    await writeEvents('acc_2', 2, 'evt_watched_');
    await client.query(`UPDATE events SET revision = 1 WHERE account_id IN ('acc_1', 'acc_2')`);
    await watched;

    expect(heard).toEqual(['acc_2 0', 'acc_2 0']);
  } finally {
    await client.query(`DELETE FROM event_stream_slots WHERE account_id IN ('acc_2', 'acc_3')`);
    await listener.end();
  }
});
