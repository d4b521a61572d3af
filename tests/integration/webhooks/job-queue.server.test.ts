// The webhooks' job queue (pg-boss 12) against a real PostgreSQL: a recorded message's job is
// fetched and completed by a worker, an endpoint's jobs run at most 4 at once while another
// endpoint's go on, and a job whose process is killed mid-job is run again by another process.
// Needs a server (DATABASE_URL): another process works on the same database.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import type { DeliveryJob } from '../../../src/core/ports/webhook-jobs';
import { JobQueue } from '../../../src/infrastructure/job-queue/job-queue';
import { RELAY } from '../../../src/infrastructure/job-queue/message-relay';
import { DELIVERY_QUEUE } from '../../../src/infrastructure/job-queue/queues';
import { DELIVERY_WORK, type DeliveryHandler, workDeliveries } from '../../../src/infrastructure/job-queue/workers';
import { PostgresWebhookJobs } from '../../../src/infrastructure/persistence/postgres/webhook-jobs';
import { PostgresWebhookMessages } from '../../../src/infrastructure/persistence/postgres/webhook-messages';
import { aPausedTraveller } from '../../support/builders/traveller-builder';
import { thePrimaryTimeline } from '../../support/builders/timeline-builder';
import { anAccountRecord } from '../../support/contracts/subject';
import { plainRepositories } from '../../support/plain-repositories';
import { serviceLog } from '../../support/service-log';
import { provisionTestDatabase, type TestDatabase } from '../../support/test-database';
import { signal, waitFor, within } from '../../support/wait-for';

jest.setTimeout(90_000);

const ACCOUNT = 'acc_1';
const CHILD = join(__dirname, '../../support/job-queue-process.ts');

let database: TestDatabase;
const log = serviceLog();
const queues: JobQueue[] = [];

beforeAll(async () => {
  database = await provisionTestDatabase();
  const repos = plainRepositories(database);
  await repos.accounts.add(anAccountRecord(ACCOUNT));
  await repos.travellers.add(aPausedTraveller(ACCOUNT));
  await repos.timelines.add(thePrimaryTimeline());
  for (const endpoint of ['whk_a', 'whk_b'])
    await database.sql.query(
      `INSERT INTO webhook_endpoints (account_id, id, url, event_types, status, secret, created_at)
       VALUES ($1, $2, 'https://hooks.example/in', '{event.recorded}', 'enabled', 'whsec_c2VjcmV0', now())`,
      [ACCOUNT, endpoint],
    );
});
afterEach(async () => {
  await Promise.all(queues.splice(0).map((queue) => queue.stop()));
  // Each test starts from an empty queue: the jobs of the one before are not its business.
  await database.sql.query(`DELETE FROM pgboss.job WHERE name = $1`, [DELIVERY_QUEUE]);
});
afterAll(() => database?.close());

/** A service process's queue, supervising every second, its workers running `handler` as the service's do. */
async function aQueue(handler: DeliveryHandler, pollingSeconds = 0.5): Promise<JobQueue> {
  const queue = await JobQueue.start({
    connectionString: database.connectionString,
    poolSize: 1,
    log: log.logger,
    superviseSeconds: 1,
    graceMs: 1_000,
  });
  queues.push(queue);
  await workDeliveries(queue, handler, { ...DELIVERY_WORK, pollingSeconds });
  return queue;
}

/** An event the account writes, whose statement records its message for each endpoint. */
async function anEventRecorded(id: string): Promise<void> {
  await database.sql.query(
    `INSERT INTO events (account_id, id, timeline_id, kind, time, original_time, description, location,
                         description_key, location_key, recorded_at, revision)
     VALUES ($1, $2, 'primary', 'arrival', now(), now(), 'Arrival', 'home', 'd', 'l', now(), 0)`,
    [ACCOUNT, id],
  );
}

function stateOf(messageId: string): Promise<string | undefined> {
  return database.sql
    .query<{ state: string }>(`SELECT state::text AS state FROM pgboss.job WHERE data ->> 'messageId' = $1`, [
      messageId,
    ])
    .then((rows) => rows[0]?.state);
}

it("runs a relayed message's job, and completes it when the handler returns", async () => {
  const taken: DeliveryJob[] = [];
  await aQueue(async (job) => {
    taken.push(job);
  });
  await anEventRecorded('evt_1');
  const recorded = await database.sql.query<{ id: string; endpoint_id: string }>(
    `SELECT message_id AS id, endpoint_id FROM webhook_outbox WHERE subject ->> 'id' = 'evt_1' ORDER BY endpoint_id`,
    [],
  );
  expect(recorded.map((message) => message.endpoint_id)).toEqual(['whk_a', 'whk_b']);
  // Given their jobs as a process's relay does (message-relay.ts).
  expect(await new PostgresWebhookMessages(database.sql).relay(RELAY.perEndpoint, RELAY.atMost)).toBe(2);

  await waitFor(() => taken.length === 2, { what: 'both jobs to be taken', timeoutMs: 10_000 });
  expect([...taken].sort((x, y) => x.endpointId.localeCompare(y.endpointId))).toEqual(
    recorded.map((message) => ({ accountId: ACCOUNT, messageId: message.id, endpointId: message.endpoint_id })),
  );
  for (const message of recorded)
    await waitFor(async () => (await stateOf(message.id)) === 'completed', { what: `${message.id} completed` });
  expect(log.lines.some((line) => line.msg === 'job queue started')).toBe(true);
});

it('fails a job whose handler throws, logs it, and tries it again', async () => {
  let tries = 0;
  await aQueue(async () => {
    tries += 1;
    if (tries === 1) throw new Error('the database went away');
  });
  await new PostgresWebhookJobs(database.sql).scheduleDelivery(
    { accountId: ACCOUNT, messageId: 'msg_flaky', endpointId: 'whk_a' },
    new Date(),
  );

  // The queue's retry waits 2.5 to 5 s (retryDelay 5, backed off with jitter).
  await waitFor(async () => (await stateOf('msg_flaky')) === 'completed', { what: 'the retry', timeoutMs: 20_000 });
  expect(tries).toBe(2);
  expect(log.lines).toContainEqual(
    expect.objectContaining({
      msg: 'job failed',
      queue: DELIVERY_QUEUE,
      err: expect.objectContaining({ message: 'the database went away' }),
    }),
  );
});

it('has as many idle workers take jobs just made as a wake asks for, long before their next poll', async () => {
  const taken: DeliveryJob[] = [];
  const release = signal();
  // Workers polling every 5 minutes: past their first look, only a wake makes them look again. Each
  // holds its take until every job is taken, so one woken worker could not take them all in turn.
  const queue = await aQueue(async (job) => {
    taken.push(job);
    await release.promise;
  }, 300);
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const jobs = new PostgresWebhookJobs(database.sql);
  for (let n = 0; n < 6; n += 1)
    await jobs.scheduleDelivery(
      { accountId: ACCOUNT, messageId: `msg_woken${n}`, endpointId: `whk_${n % 2 ? 'a' : 'b'}` },
      new Date(),
    );

  queue.wake(DELIVERY_QUEUE, 6);
  await waitFor(() => taken.length === 6, { what: 'the woken workers to take every job', timeoutMs: 20_000 });
  release.resolve();
});

it("runs at most 4 of an endpoint's jobs at once over two processes, while another endpoint's go on", async () => {
  const running = new Map<string, number>();
  const most = new Map<string, number>();
  const done: DeliveryJob[] = [];
  const release = signal();
  const handler: DeliveryHandler = async (job) => {
    const now = (running.get(job.endpointId) ?? 0) + 1;
    running.set(job.endpointId, now);
    most.set(job.endpointId, Math.max(most.get(job.endpointId) ?? 0, now));
    // The slow endpoint's attempts hang until the test lets them go.
    if (job.endpointId === 'whk_a') await release.promise;
    running.set(job.endpointId, (running.get(job.endpointId) ?? 0) - 1);
    done.push(job);
  };
  // Two processes' queues: the bound holds over both.
  await aQueue(handler);
  await aQueue(handler);
  const jobs = new PostgresWebhookJobs(database.sql);
  const now = new Date();
  for (let n = 0; n < 10; n += 1)
    await jobs.scheduleDelivery({ accountId: ACCOUNT, messageId: `msg_a${n}`, endpointId: 'whk_a' }, now);
  for (let n = 0; n < 3; n += 1)
    await jobs.scheduleDelivery({ accountId: ACCOUNT, messageId: `msg_b${n}`, endpointId: 'whk_b' }, now);

  await waitFor(() => done.filter((job) => job.endpointId === 'whk_b').length === 3, {
    what: "the other endpoint's jobs, past the slow one's",
    timeoutMs: 10_000,
  });
  await waitFor(() => running.get('whk_a') === 4, { what: "4 of the slow endpoint's jobs running" });
  // Several polls of both queues' workers later, the slow endpoint still has 4 under way and 6 waiting.
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  expect(running.get('whk_a')).toBe(4);
  release.resolve();
  await waitFor(() => done.length === 13, { what: 'every job done', timeoutMs: 20_000 });
  expect(most.get('whk_a')).toBe(4);
});

it('runs again, in another process, the job of a process killed in the middle of it', async () => {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', CHILD, database.connectionString], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    let output = '';
    const working = signal<string>();
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const taken = /working (\S+)/.exec(output);
      if (taken?.[1]) working.resolve(taken[1]);
    });
    await waitFor(() => output.includes('ready'), { what: 'the other process to work', timeoutMs: 30_000 });
    await new PostgresWebhookJobs(database.sql).scheduleDelivery(
      { accountId: ACCOUNT, messageId: 'msg_orphan', endpointId: 'whk_a' },
      new Date(),
    );
    expect(await within(working.promise, { what: 'the other process to take the job', timeoutMs: 10_000 })).toBe(
      'msg_orphan',
    );
    expect(await stateOf('msg_orphan')).toBe('active');
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));

    const taken = signal<DeliveryJob>();
    await aQueue(async (job) => taken.resolve(job));
    // Its heartbeat (10 s) missed, the supervision (every second here) returns it, due after the
    // queue's retry delay (2.5 to 5 s).
    expect(await within(taken.promise, { what: 'the job to be run again', timeoutMs: 40_000 })).toEqual({
      accountId: ACCOUNT,
      messageId: 'msg_orphan',
      endpointId: 'whk_a',
    });
    await waitFor(async () => (await stateOf('msg_orphan')) === 'completed', { what: 'the job completed' });
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
});
