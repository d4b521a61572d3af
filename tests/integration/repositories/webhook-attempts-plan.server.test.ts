// The deliveries listing (GET /v1/webhook-endpoints/{id}/deliveries) is one statement: an ordered
// range of the index webhook_attempts_by_endpoint, cut at the page, each attempt's message read by
// its key, nothing sorted, whatever the endpoint has accumulated. Read off PostgreSQL's own EXPLAIN
// for each form (the first page, and paged on), planned for the values given (as a statement's
// first runs are) and generically (as the service's prepared statement may be after five). Needs a
// server (DATABASE_URL): the plans are read through a connection of their own.
import { Client } from 'pg';
import { ENDPOINT_ATTEMPTS } from '../../../src/infrastructure/persistence/postgres/statements/webhooks';
import { anAccountRecord } from '../../support/contracts/subject';
import { plainRepositories } from '../../support/plain-repositories';
import { flatten, planOf } from '../../support/query-plan';
import { provisionTestDatabase, type TestDatabase } from '../../support/test-database';
import { anEndpointAt } from '../../support/webhook-delivery/webhook-rows';

jest.setTimeout(60_000);

const ACCOUNT = 'acc_1';
/** Endpoints of the account, each with MESSAGES messages of ATTEMPTS attempts. */
const ENDPOINTS = 10;
const MESSAGES = 500;
const ATTEMPTS = 3;

const LISTING = { accountId: ACCOUNT, endpointId: 'whk_3', limit: 101 };
const CURSOR = {
  afterAttemptedAt: new Date('2026-11-29T09:00:00.000Z'),
  afterMessageId: 'msg_0000250',
  afterAttempt: 2,
};
const FORMS = [
  { name: 'the first page', text: ENDPOINT_ATTEMPTS.first.text, values: ENDPOINT_ATTEMPTS.first.values(LISTING) },
  {
    name: 'paged on',
    text: ENDPOINT_ATTEMPTS.after.text,
    values: ENDPOINT_ATTEMPTS.after.values({ ...LISTING, ...CURSOR }),
    pagedOn: true,
  },
];

let database: TestDatabase;
let client: Client;

beforeAll(async () => {
  database = await provisionTestDatabase();
  await plainRepositories(database).accounts.add(anAccountRecord(ACCOUNT));
  for (let n = 1; n <= ENDPOINTS; n++)
    await anEndpointAt(database.sql, ACCOUNT, `whk_${n}`, 'https://hooks.example/in');
  // A message a second from 08:00 for each endpoint, its attempts a minute apart.
  await database.sql.query(
    `INSERT INTO webhook_messages (account_id, id, endpoint_id, event_type, subject, created_at, state, attempts)
     SELECT $1, 'msg_' || lpad(m::text, 7, '0') || '_' || e, 'whk_' || e, 'event.recorded', '{}',
            timestamptz '2026-11-29T08:00:00Z' + m * interval '1 second', 'delivered', $2
       FROM generate_series(1, $3::int) AS m, generate_series(1, $4::int) AS e`,
    [ACCOUNT, ATTEMPTS, MESSAGES, ENDPOINTS],
  );
  await database.sql.query(
    `INSERT INTO webhook_attempts (account_id, message_id, attempt, endpoint_id, attempted_at, status, duration_ms)
     SELECT account_id, id, a, endpoint_id, created_at + (a - 1) * interval '1 minute', 200, 10
       FROM webhook_messages, generate_series(1, $1::int) AS a`,
    [ATTEMPTS],
  );
  await database.sql.query('ANALYZE webhook_messages, webhook_attempts', []);
  client = new Client({ connectionString: database.connectionString });
  await client.connect();
});
afterAll(async () => {
  await client?.end();
  await database?.close();
});

describe.each(['force_custom_plan', 'force_generic_plan'])('the deliveries listing planned with %s', (mode) => {
  it.each(FORMS)(
    '$name: an ordered range of the index by endpoint, each message by its key, nothing sorted',
    async ({ text, values, pagedOn }) => {
      const nodes = flatten(await planOf(client, { text, values, mode }));

      const reads = nodes.filter((node) => node['Relation Name'] !== undefined);
      expect(reads.map((node) => [node['Relation Name'], node['Index Name']])).toEqual([
        ['webhook_attempts', 'webhook_attempts_by_endpoint'],
        ['webhook_messages', 'webhook_messages_pkey'],
      ]);
      const attemptsRead = nodes.find((node) => node['Relation Name'] === 'webhook_attempts');
      // The cursor bounds the index range itself, rather than filtering the endpoint's every attempt.
      if (pagedOn) expect(attemptsRead?.['Index Cond']).toContain('attempted_at <=');
      expect(nodes.map((node) => node['Node Type'])).not.toContain('Sort');
    },
  );
});
