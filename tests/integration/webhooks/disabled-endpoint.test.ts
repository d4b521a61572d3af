// What becomes of a disabled endpoint's messages still pending: failed with its disabling, whoever
// disables it (its owner, a 410), so that the oldest pending message's age stays truthful; enabled
// again, the endpoint receives the changes made from then on, never the old ones. A message that a
// write recorded for an endpoint being disabled is failed by its attempt. On PostgreSQL
// (DATABASE_URL) and on the embedded PGlite.
import type { Container } from 'inversify';
import { buildContainer } from '../../../src/composition/container';
import type { ProcessJobQueue } from '../../../src/composition/job-queue';
import {
  DisableWebhookEndpoint,
  EnableWebhookEndpoint,
} from '../../../src/core/use-cases/webhook-endpoints/endpoint-state';
import { createDatabaseClients } from '../../../src/infrastructure/database/driver/prisma-client';
import { createMetricsRegistry } from '../../../src/infrastructure/metrics/metrics-registry';
import { WebhookMetrics } from '../../../src/infrastructure/metrics/webhook-metrics';
import { PostgresWebhookJobs } from '../../../src/infrastructure/persistence/postgres/webhook-jobs';
import { samplesOf } from '../../support/metrics/exposition';
import { provisionTestDatabase, type TestDatabase } from '../../support/test-database';
import { startInProcessQueue } from '../../support/webhook-delivery/in-process-queue';
import { type LocalReceiver, startReceiver } from '../../support/webhook-delivery/local-receiver';
import { waitFor } from '../../support/wait-for';
import { accountsReadyToWrite, anEndpointAt, anEventOf } from '../../support/webhook-delivery/webhook-rows';

jest.setTimeout(60_000);

/** An account per test: every endpoint of an account receives each of its changes. */
const [OWNER, GONE, LATE] = ['acc_owner', 'acc_gone', 'acc_late'];

let database: TestDatabase;
let pool: ReturnType<typeof createDatabaseClients>;
let container: Container;
let queue: ProcessJobQueue;
let receiver: LocalReceiver;
const registry = createMetricsRegistry();
/** What the receiver answers each request to a path, in turn; 204 once the list is spent. */
const answers = new Map<string, number[]>();

beforeAll(async () => {
  database = await provisionTestDatabase();
  await accountsReadyToWrite(database, [OWNER, GONE, LATE]);
  receiver = await startReceiver((response, received) =>
    response.writeHead(answers.get(received.url)?.shift() ?? 204).end(),
  );
  pool = createDatabaseClients(database.connectionString, { maxConnections: 2 });
  // A failed attempt is tried again an hour later: long past the test, so its message stays pending.
  container = buildContainer({
    prisma: pool.prisma,
    sql: pool.sql,
    webhookAllowPrivateUrls: true,
    webhookRetrySchedule: [3_600],
  });
  queue = await startInProcessQueue(database, container, { metrics: new WebhookMetrics(registry) });
});
afterAll(async () => {
  await queue?.stop();
  await pool?.prisma.$disconnect();
  await receiver?.close();
  await database?.close();
});

const anEndpoint = (account: string, id: string, path: string) =>
  anEndpointAt(database.sql, account, id, `http://127.0.0.1:${receiver.port}${path}`);
const anEvent = (account: string, id: string) => anEventOf(database.sql, account, id);

interface MessageRow {
  readonly event: string;
  readonly state: string;
  readonly attempts: number;
  readonly next_attempt_at: Date | null;
}

const messagesOf = (endpointId: string) =>
  database.sql.query<MessageRow>(
    `SELECT subject ->> 'id' AS event, state, attempts, next_attempt_at
       FROM webhook_messages WHERE endpoint_id = $1 ORDER BY subject ->> 'id'`,
    [endpointId],
  );

/** Each message of the endpoint attempted once and waiting for its retry. */
const waitingForRetry = (endpointId: string, count: number) =>
  waitFor(
    async () => {
      const rows = await messagesOf(endpointId);
      return rows.length === count && rows.every((row) => row.state === 'pending' && row.attempts === 1);
    },
    { what: `${count} message(s) of ${endpointId} waiting for their retry`, timeoutMs: 20_000 },
  );

const oldestPendingAge = async () =>
  samplesOf(await registry.metrics(), 'tns_webhook_oldest_pending_message_age_seconds')[0];

const at = (path: string) => receiver.received.filter((each) => each.url === path);

it("fails its owner's disabled endpoint's pending messages; enabled again, it gets new changes only", async () => {
  answers.set('/off', [500, 500]);
  await anEndpoint(OWNER, 'whk_off', '/off');
  await anEvent(OWNER, 'evt_1');
  await anEvent(OWNER, 'evt_2');
  await waitingForRetry('whk_off', 2);
  expect(await oldestPendingAge()).toBeGreaterThan(0);

  await container.get(DisableWebhookEndpoint).execute({ accountId: OWNER, endpointId: 'whk_off' });

  expect(await messagesOf('whk_off')).toEqual([
    { event: 'evt_1', state: 'failed', attempts: 1, next_attempt_at: null },
    { event: 'evt_2', state: 'failed', attempts: 1, next_attempt_at: null },
  ]);
  expect(await oldestPendingAge()).toBe(0);

  await container.get(EnableWebhookEndpoint).execute({ accountId: OWNER, endpointId: 'whk_off' });
  await anEvent(OWNER, 'evt_3');
  await waitFor(
    async () => (await messagesOf('whk_off')).find((row) => row.event === 'evt_3' && row.state === 'delivered'),
    { what: 'the change made once enabled, delivered', timeoutMs: 20_000 },
  );
  const rows = await messagesOf('whk_off');
  expect(rows.filter((row) => row.state === 'failed').map((row) => row.event)).toEqual(['evt_1', 'evt_2']);
  // The two first attempts and the new change's: the failed messages were not sent again.
  expect(at('/off')).toHaveLength(3);
  expect(await oldestPendingAge()).toBe(0);
});

it("fails the endpoint's other pending messages when a 410 disables it", async () => {
  answers.set('/gone', [500, 410]);
  await anEndpoint(GONE, 'whk_gone', '/gone');
  await anEvent(GONE, 'evt_4');
  await waitingForRetry('whk_gone', 1);
  expect(await oldestPendingAge()).toBeGreaterThan(0);

  await anEvent(GONE, 'evt_5');
  const rows = await waitFor(
    async () => {
      const found = await messagesOf('whk_gone');
      return found.length === 2 && found.every((row) => row.state === 'failed') ? found : undefined;
    },
    { what: 'both messages failed', timeoutMs: 20_000 },
  );
  expect(rows.map((row) => [row.event, row.attempts, row.next_attempt_at])).toEqual([
    ['evt_4', 1, null],
    ['evt_5', 1, null],
  ]);
  const [endpoint] = await database.sql.query<{ status: string; disabled_reason: string }>(
    `SELECT status, disabled_reason FROM webhook_endpoints WHERE id = 'whk_gone'`,
    [],
  );
  expect(endpoint).toEqual({ status: 'disabled', disabled_reason: 'gone' });
  expect(await oldestPendingAge()).toBe(0);
});

it('fails, unsent, a message recorded for an endpoint while it was being disabled, at its attempt', async () => {
  await anEndpoint(LATE, 'whk_late', '/late');
  await database.sql.query(
    `UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = 'by_owner' WHERE id = 'whk_late'`,
    [],
  );
  // As a write's statement that read the endpoint enabled, committing after its disabling.
  await database.sql.query(
    `INSERT INTO webhook_messages (account_id, id, endpoint_id, event_type, subject, created_at, state)
     VALUES ($1, 'msg_late', 'whk_late', 'event.recorded', '{"id": "evt_late"}', now(), 'pending')`,
    [LATE],
  );
  await new PostgresWebhookJobs(database.sql).scheduleDelivery(
    { accountId: LATE, messageId: 'msg_late', endpointId: 'whk_late' },
    new Date(),
  );

  await waitFor(async () => (await messagesOf('whk_late'))[0]?.state === 'failed', {
    what: 'the message failed by its attempt',
    timeoutMs: 20_000,
  });
  expect(await messagesOf('whk_late')).toEqual([
    { event: 'evt_late', state: 'failed', attempts: 0, next_attempt_at: null },
  ]);
  expect(at('/late')).toEqual([]);
  expect(await oldestPendingAge()).toBe(0);
});
