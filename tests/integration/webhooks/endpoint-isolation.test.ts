// A dead endpoint of one account never delays another account's deliveries: account A's endpoint
// takes each request and never answers (each attempt then waits out its 15 s bound), with more of
// A's messages due than its 4 slots hold, while account B's messages are all delivered before any
// of A's first attempts has ended. As a service process runs them (one process, its 16 workers).
// On PostgreSQL (DATABASE_URL) and on the embedded PGlite.
import { buildContainer } from '../../../src/composition/container';
import type { ProcessJobQueue } from '../../../src/composition/job-queue';
import { createDatabaseClients } from '../../../src/infrastructure/database/driver/prisma-client';
import { WEBHOOK_ATTEMPT_TIMEOUT_MS } from '../../../src/infrastructure/webhook-delivery/http-webhook-sender';
import { ENDPOINT_CONCURRENCY } from '../../../src/infrastructure/job-queue/queues';
import { provisionTestDatabase, type TestDatabase } from '../../support/test-database';
import { waitFor } from '../../support/wait-for';
import { startInProcessQueue } from '../../support/webhook-delivery/in-process-queue';
import { type LocalReceiver, startReceiver } from '../../support/webhook-delivery/local-receiver';
import { accountsReadyToWrite, anEndpointAt, anEventOf } from '../../support/webhook-delivery/webhook-rows';

jest.setTimeout(60_000);

const [A, B] = ['acc_dead', 'acc_live'];
const MESSAGES = 10;

let database: TestDatabase;
let pool: ReturnType<typeof createDatabaseClients>;
let queue: ProcessJobQueue;
let receiver: LocalReceiver;

beforeAll(async () => {
  database = await provisionTestDatabase();
  await accountsReadyToWrite(database, [A, B]);
  // A's path is taken and never answered; B's answered at once.
  receiver = await startReceiver((response, received) => {
    if (received.url === '/live') response.writeHead(204).end();
  });
  pool = createDatabaseClients(database.connectionString, { maxConnections: 2 });
  const container = buildContainer({ prisma: pool.prisma, sql: pool.sql, webhookAllowPrivateUrls: true });
  queue = await startInProcessQueue(database, container);
});
afterAll(async () => {
  // The receiver first: its close ends A's hanging attempts, which the queue's stop would wait for.
  await receiver?.close();
  await queue?.stop();
  await pool?.prisma.$disconnect();
  await database?.close();
});

const at = (path: string) => receiver.received.filter((each) => each.url === path);
const attemptsOf = async (account: string) =>
  (await database.sql.query(`SELECT 1 FROM webhook_attempts WHERE account_id = $1`, [account])).length;

it("delivers B's messages while A's dead endpoint holds its own slots, before any of A's attempts ends", async () => {
  const url = (path: string) => `http://127.0.0.1:${receiver.port}${path}`;
  await anEndpointAt(database.sql, A, 'whk_dead', url('/dead'));
  await anEndpointAt(database.sql, B, 'whk_live', url('/live'));
  for (let n = 0; n < MESSAGES; n += 1) await anEventOf(database.sql, A, `evt_a${n}`);
  await waitFor(() => at('/dead').length === ENDPOINT_CONCURRENCY, {
    what: "A's endpoint holding its 4 slots",
    timeoutMs: 10_000,
  });
  const aHeldSince = Date.now();

  for (let n = 0; n < MESSAGES; n += 1) await anEventOf(database.sql, B, `evt_b${n}`);
  await waitFor(() => at('/live').length === MESSAGES, { what: "B's deliveries", timeoutMs: 10_000 });
  const bDoneAfterMs = Date.now() - aHeldSince;

  // A's first attempts are all still hanging, and the rest of its messages wait for their slots.
  expect(bDoneAfterMs).toBeLessThan(WEBHOOK_ATTEMPT_TIMEOUT_MS);
  expect(await attemptsOf(A)).toBe(0);
  expect(at('/dead')).toHaveLength(ENDPOINT_CONCURRENCY);
  await waitFor(async () => (await attemptsOf(B)) === MESSAGES, { what: "B's attempts recorded" });
  const states = await database.sql.query<{ account_id: string; state: string; count: number }>(
    `SELECT account_id, state, count(*)::int AS count FROM webhook_messages GROUP BY account_id, state ORDER BY 1`,
    [],
  );
  expect(states).toEqual([
    { account_id: A, state: 'pending', count: MESSAGES },
    { account_id: B, state: 'delivered', count: MESSAGES },
  ]);
});
