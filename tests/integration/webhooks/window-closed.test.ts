// timeline.window_closed from end to end, as a service process runs it (composition/job-queue.ts):
// a timeline made with a window for an account whose endpoint receives the type has its check
// scheduled by its write; the queue's worker runs RecordWindowClosed when it is due, which records
// the message and its delivery job; the process counts it, and shows the backlog, in its metrics.
// On PostgreSQL (DATABASE_URL) and on the embedded PGlite alike.
import { buildContainer } from '../../../src/composition/container';
import { RecordedMessages, type ProcessJobQueue } from '../../../src/composition/job-queue';
import { Timeline } from '../../../src/core/domain/timeline';
import { createDatabaseClients } from '../../../src/infrastructure/database/driver/prisma-client';
import { createMetricsRegistry } from '../../../src/infrastructure/metrics/metrics-registry';
import { WebhookMetrics } from '../../../src/infrastructure/metrics/webhook-metrics';

import { PostgresTransactionBoundary } from '../../../src/infrastructure/persistence/postgres/transaction-boundary';
import { KeyedRequests } from '../../../src/infrastructure/persistence/postgres/unit-of-work/keyed-requests';
import { aPausedTraveller } from '../../support/builders/traveller-builder';
import { anAccountRecord } from '../../support/contracts/subject';
import { samplesOf } from '../../support/metrics/exposition';
import { plainRepositories } from '../../support/plain-repositories';
import { provisionTestDatabase, type TestDatabase } from '../../support/test-database';
import { waitFor } from '../../support/wait-for';
import { startInProcessQueue } from '../../support/webhook-delivery/in-process-queue';

jest.setTimeout(60_000);

const ACCOUNT = 'acc_1';

let database: TestDatabase;
let queue: ProcessJobQueue | undefined;
let pool: ReturnType<typeof createDatabaseClients> | undefined;

beforeAll(async () => {
  database = await provisionTestDatabase();
  const repos = plainRepositories(database);
  await repos.accounts.add(anAccountRecord(ACCOUNT));
  await repos.travellers.add(aPausedTraveller(ACCOUNT));
  await repos.timelines.add(Timeline.primary(ACCOUNT, new Date('2030-01-01T00:00:00Z')));
  await database.sql.query(
    `INSERT INTO webhook_endpoints (account_id, id, url, event_types, status, secret, created_at)
     VALUES ($1, 'whk_1', 'https://hooks.example/in', '{timeline.window_closed}', 'enabled', 'whsec_c2VjcmV0', now())`,
    [ACCOUNT],
  );
});
afterAll(async () => {
  await queue?.stop();
  await pool?.prisma.$disconnect();
  await database?.close();
});

it('records the message of a window closed on its journey when its check is due, and counts it', async () => {
  const registry = createMetricsRegistry();
  const metrics = new WebhookMetrics(registry);
  // The process's own pool, whose connections hear the database's notices, as process-database.ts wires it.
  pool = createDatabaseClients(database.connectionString, {
    maxConnections: 1,
    onNotice: new RecordedMessages(metrics).heard,
  });
  const container = buildContainer({ prisma: pool.prisma, sql: pool.sql });
  queue = await startInProcessQueue({ connectionString: database.connectionString, sql: pool.sql }, container, {
    metrics,
  });
  // Made two minutes ago with a window of one: its check is due at once.
  const timeline = Timeline.create({
    accountId: ACCOUNT,
    id: 'tml_late',
    name: 'Late',
    destinationTime: new Date('1969-07-20T20:17:40Z'),
    windowMinutes: 1,
    now: new Date(Date.now() - 120_000),
  });
  const transactions = new PostgresTransactionBoundary(database, new KeyedRequests(database.sql));
  await transactions.exclusive(ACCOUNT, (repos) => repos.timelines.add(timeline));

  const recorded = await waitFor(
    async () => {
      const rows = await database.sql.query<{ id: string; endpoint_id: string; subject: { status: string } }>(
        `SELECT id, endpoint_id, subject FROM webhook_messages WHERE event_type = 'timeline.window_closed'`,
        [],
      );
      return rows.length > 0 && rows;
    },
    { what: 'the window closed to be recorded', timeoutMs: 20_000 },
  );
  expect(recorded.map((row) => [row.endpoint_id, row.subject.status])).toEqual([['whk_1', 'expired']]);
  // Its delivery job, given by the process's relay, in its endpoint's group. The queue's worker may
  // already have tried it and scheduled the next attempt, a job of the same kind: which jobs, not how many.
  const jobs = await waitFor(
    async () => {
      const rows = await database.sql.query<{ name: string; group_id: string }>(
        `SELECT DISTINCT name, group_id FROM pgboss.job WHERE data ->> 'messageId' = $1`,
        [recorded[0]?.id],
      );
      return rows.length > 0 && rows;
    },
    { what: 'the relay to give the message its job', timeoutMs: 10_000 },
  );
  expect(jobs).toEqual([{ name: 'webhook-delivery', group_id: 'whk_1' }]);

  const text = await registry.metrics();
  const counted = samplesOf(text, 'tns_webhook_messages_recorded_total', { type: 'timeline.window_closed' });
  expect(counted).toEqual([1]);
  const age = samplesOf(text, 'tns_webhook_oldest_pending_message_age_seconds');
  expect(age).toHaveLength(1);
  expect(age[0]).toBeGreaterThanOrEqual(0);
});
