// docs/scaling.md, "Past one database": the plan for a distributed PostgreSQL (Citus) rests on how
// each table is keyed. An account's state is keyed by account first, so it can be distributed by
// `account_id` and co-located; the few tables keyed otherwise, and the unique keys that do not
// start with the account, are the ones the plan treats apart. A new table or key fails this test
// until the plan says where it goes.
import { provisionTestDatabase, type TestDatabase } from '../../support/test-database';

/** Tables distributed by `account_id` in the plan: their primary key starts with it. */
const ACCOUNT_STATE = [
  'anchors',
  'event_manipulations',
  'event_stream_slots',
  'events',
  'idempotency_keys',
  'items',
  'timelines',
  'travellers',
  'travels',
  'webhook_attempts',
  'webhook_endpoints',
  'webhook_messages',
  'webhook_outbox',
];

/** Every other table and its primary key, each with its own place in the plan. */
const KEYED_OTHERWISE = {
  _prisma_migrations: 'id',
  accounts: 'id',
  api_keys: 'id',
  login_throttles: 'key',
  rate_limit_counters: 'key, window_start',
  service_secrets: 'name',
  sessions: 'id',
};

let database: TestDatabase;
beforeAll(async () => {
  database = await provisionTestDatabase();
}, 30_000);
afterAll(() => database.close());

it("keys every table of an account's state by account first, and names the others", async () => {
  const keys = await database.prisma.$queryRaw<Array<{ table: string; key: string }>>`
    SELECT c.relname AS table, string_agg(a.attname, ', ' ORDER BY k.position) AS key
    FROM pg_index i
    JOIN pg_class c ON c.oid = i.indrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
    CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, position)
    JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
    WHERE i.indisprimary
    GROUP BY c.relname ORDER BY c.relname`;
  const byAccount = keys.filter((row) => row.key.startsWith('account_id')).map((row) => row.table);
  expect(byAccount).toEqual(ACCOUNT_STATE);
  const others = Object.fromEntries(
    keys.filter((row) => !row.key.startsWith('account_id')).map((row) => [row.table, row.key]),
  );
  expect(others).toEqual(KEYED_OTHERWISE);
});

it('has three unique keys not led by the account: e-mail, key digest and session token', async () => {
  const unique = await database.prisma.$queryRaw<Array<{ definition: string }>>`
    SELECT pg_get_indexdef(i.indexrelid) AS definition
    FROM pg_index i
    JOIN pg_class c ON c.oid = i.indrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
    WHERE i.indisunique AND NOT i.indisprimary
    ORDER BY 1`;
  const notByAccount = unique.map((row) => row.definition).filter((definition) => !/\(account_id\b/.test(definition));
  expect(notByAccount.map((definition) => /ON public\.(\w+) USING btree \((.+)\)/.exec(definition)?.slice(1))).toEqual([
    ['accounts', 'email'],
    ['api_keys', 'digest'],
    ['sessions', 'token_digest'],
  ]);
});

it('refers to accounts only by account_id, the key the account state would be distributed by', async () => {
  const references = await database.prisma.$queryRaw<Array<{ table: string; definition: string }>>`
    SELECT conrelid::regclass::text AS table, pg_get_constraintdef(oid) AS definition
    FROM pg_constraint WHERE contype = 'f' AND connamespace = 'public'::regnamespace
    ORDER BY 1`;
  expect(new Set(references.map((row) => row.definition.replace(/ ON .*/, '')))).toEqual(
    new Set([
      'FOREIGN KEY (account_id) REFERENCES accounts(id)',
      // Between tables of an account's state, led by the account: co-located, as the plan needs.
      'FOREIGN KEY (account_id, endpoint_id) REFERENCES webhook_endpoints(account_id, id)',
      'FOREIGN KEY (account_id, message_id) REFERENCES webhook_messages(account_id, id)',
    ]),
  );
  // Without a foreign key: idempotency_keys, and event_stream_slots (unlogged leases, schema.prisma).
  const unreferenced = new Set(['idempotency_keys', 'event_stream_slots']);
  expect(references.map((row) => row.table).sort()).toEqual(
    [...ACCOUNT_STATE.filter((table) => !unreferenced.has(table)), 'api_keys', 'sessions'].sort(),
  );
});
