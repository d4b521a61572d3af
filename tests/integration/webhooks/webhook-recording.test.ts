// Webhook messages are recorded by the statement that writes the change (migrations
// 20261129082908_webhook_recording, 20261129201927_webhook_outbox,
// 20261130070000_webhook_outbox_carries_messages): each as a row of the outbox carrying the message,
// in the same transaction, only for accounts with an enabled endpoint subscribed to the type; the
// relay then makes each message's row and its job in pg-boss's table. On PostgreSQL
// (DATABASE_URL) and on the embedded PGlite alike, as the service runs on either.
import { Client } from 'pg';
import { Timeline } from '../../../src/core/domain/timeline';
import type { TimelineEvent } from '../../../src/core/domain/timeline-event';
import { createDatabaseClients } from '../../../src/infrastructure/database/driver/prisma-client';
import { BUSY } from '../../../src/infrastructure/job-queue/message-relay';
import { DELIVERY_QUEUE, QUEUES, WINDOW_CHECK_QUEUE } from '../../../src/infrastructure/job-queue/queues';
import { PostgresTransactionBoundary } from '../../../src/infrastructure/persistence/postgres/transaction-boundary';
import { KeyedRequests } from '../../../src/infrastructure/persistence/postgres/unit-of-work/keyed-requests';
import { PostgresWebhookJobs } from '../../../src/infrastructure/persistence/postgres/webhook-jobs';
import {
  PostgresWebhookMessages,
  type RecordedMessages,
  recordedMessagesOf,
} from '../../../src/infrastructure/persistence/postgres/webhook-messages';
import { anEvent } from '../../support/builders/event-builder';
import { aPausedTraveller } from '../../support/builders/traveller-builder';
import { anAccountRecord } from '../../support/contracts/subject';
import { plainRepositories } from '../../support/plain-repositories';
import { serverOnly } from '../../support/server-only';
import { provisionTestDatabase, type TestDatabase } from '../../support/test-database';

jest.setTimeout(30_000);

const WITH = 'acc_hooked';
const WITHOUT = 'acc_plain';

interface MessageRow {
  readonly id: string;
  /** `waiting` for a message still in the outbox, with no row of its own yet. */
  readonly endpoint_id: string;
  readonly event_type: string;
  readonly subject: Record<string, unknown>;
  readonly state: string;
  readonly attempts: number;
}

interface JobRow {
  readonly name: string;
  readonly data: Record<string, string>;
  readonly group_id: string | null;
  readonly singleton_key: string | null;
  readonly state: string;
  readonly start_after: Date;
  /** Every setting pg-boss's send() copies from the queue's row, copied alike. */
  readonly as_the_queue_says: boolean;
}

let database: TestDatabase;
let transactions: PostgresTransactionBoundary;

beforeAll(async () => {
  database = await provisionTestDatabase();
  transactions = new PostgresTransactionBoundary(database, new KeyedRequests(database.sql));
  for (const accountId of [WITH, WITHOUT]) await anAccount(accountId);
  await anEndpoint(WITH, 'whk_both', ['event.recorded', 'event.updated']);
  await anEndpoint(WITH, 'whk_updates', ['event.updated']);
  await anEndpoint(WITH, 'whk_disabled', ['event.recorded', 'event.updated'], 'disabled');
});
afterAll(() => database?.close());

/** An account with its traveller on its primary timeline. */
async function anAccount(accountId: string): Promise<void> {
  const repos = plainRepositories(database);
  await repos.accounts.add(anAccountRecord(accountId));
  await repos.travellers.add(aPausedTraveller(accountId));
  await repos.timelines.add(Timeline.primary(accountId, new Date('2030-01-01T00:00:00Z')));
}

async function anEndpoint(accountId: string, id: string, types: string[], status = 'enabled'): Promise<void> {
  await database.sql.query(
    `INSERT INTO webhook_endpoints (account_id, id, url, event_types, status, secret, created_at)
     VALUES ($1, $2, 'https://hooks.example/in', $3, $4, 'whsec_c2VjcmV0', now())`,
    [accountId, id, types, status],
  );
}

/** The messages given their rows by the relay. */
function messagesOf(accountId: string): Promise<MessageRow[]> {
  return database.sql.query<MessageRow>(
    `SELECT id, endpoint_id, event_type, subject, state, attempts FROM webhook_messages
      WHERE account_id = $1 ORDER BY event_type, endpoint_id, subject ->> 'id', created_at`,
    [accountId],
  );
}

/** Every message recorded: those with their rows, and those still in the outbox (state `waiting`). */
function recordedOf(accountId: string): Promise<MessageRow[]> {
  return database.sql.query<MessageRow>(
    `SELECT id, endpoint_id, event_type, subject, state, attempts FROM (
       SELECT id, endpoint_id, event_type, subject, state, attempts, created_at FROM webhook_messages
        WHERE account_id = $1
       UNION ALL
       SELECT message_id, endpoint_id, event_type, subject, 'waiting', 0, created_at FROM webhook_outbox
        WHERE account_id = $1) AS recorded
      ORDER BY event_type, endpoint_id, subject ->> 'id', created_at`,
    [accountId],
  );
}

function jobsOf(queue: string, accountId: string): Promise<JobRow[]> {
  return database.sql.query<JobRow>(
    `SELECT job.name, job.data, job.group_id, job.singleton_key, job.state::text AS state, job.start_after,
            (job.policy, job.retry_limit, job.retry_delay, job.retry_backoff, job.retry_delay_max, job.expire_seconds,
             job.deletion_seconds, job.dead_letter, job.heartbeat_seconds,
             job.keep_until - job.start_after)
            IS NOT DISTINCT FROM
            (queue.policy, queue.retry_limit, queue.retry_delay, queue.retry_backoff, queue.retry_delay_max,
             queue.expire_seconds, queue.deletion_seconds, queue.dead_letter, queue.heartbeat_seconds,
             queue.retention_seconds * interval '1 second') AS as_the_queue_says
       FROM pgboss.job JOIN pgboss.queue ON queue.name = job.name
      WHERE job.name = $1 AND job.data ->> 'accountId' = $2
      ORDER BY job.data ->> 'messageId', job.data ->> 'timelineId'`,
    [queue, accountId],
  );
}

/** The messages of an account waiting in the outbox for their jobs, by endpoint and age. */
async function outboxOf(accountId: string): Promise<{ endpoint_id: string; message_id: string }[]> {
  return database.sql.query(
    `SELECT endpoint_id, message_id FROM webhook_outbox
      WHERE account_id = $1 ORDER BY endpoint_id, created_at, message_id`,
    [accountId],
  );
}

/** The relay's statement as a process runs it: 8 due jobs per endpoint, 500 at once. */
function relay(perEndpoint = 8, atMost = 500): Promise<number> {
  return new PostgresWebhookMessages(database.sql).relay(perEndpoint, atMost);
}

/** One event recorded by an account's unit of work, in its one statement. */
function recordEvents(accountId: string, ...events: TimelineEvent[]): Promise<void> {
  return transactions.exclusive(accountId, async (repos) => {
    for (const event of events) await repos.events.add(event);
  });
}

const eventOf = (accountId: string, id: string) => anEvent({ accountId, id, timelineId: 'primary' });

describe('event.recorded and event.updated', () => {
  it("records a message per event and subscribed endpoint in the write's statement, its job by the relay", async () => {
    await recordEvents(WITH, eventOf(WITH, 'evt_r1'), eventOf(WITH, 'evt_r2'));

    const messages = await recordedOf(WITH);
    expect(messages.map((message) => [message.event_type, message.endpoint_id, message.subject.id])).toEqual([
      ['event.recorded', 'whk_both', 'evt_r1'],
      ['event.recorded', 'whk_both', 'evt_r2'],
    ]);
    expect(await messagesOf(WITH)).toEqual([]);
    for (const message of messages) {
      expect(message).toMatchObject({ state: 'waiting', attempts: 0 });
      expect(message.id).toMatch(/^msg_[0-9a-f]{32}$/);
      // The event's row as the statement wrote it, the account's version it moved to included.
      expect(message.subject).toMatchObject({
        account_id: WITH,
        timeline_id: 'primary',
        kind: 'item_retrieved',
        description: 'Item retrieved: A moon rock',
        revision: 0,
      });
      expect(Number(message.subject.account_version)).toBeGreaterThan(0);
    }
    const ids = messages.map((message) => message.id).sort();
    expect(await outboxOf(WITH)).toEqual(ids.map((id) => ({ endpoint_id: 'whk_both', message_id: id })));
    expect(await jobsOf(DELIVERY_QUEUE, WITH)).toEqual([]);
    // Undelivered while in the outbox as after: the metric's oldest is the first write's.
    const [first] = await database.sql.query<{ at: Date }>(
      'SELECT min(created_at) AS at FROM webhook_outbox WHERE account_id = $1',
      [WITH],
    );
    const oldest = () => new PostgresWebhookMessages(database.sql).oldestPendingAt();
    expect(await oldest()).toEqual(first?.at);

    expect(await relay()).toBe(2);
    expect(await oldest()).toEqual(first?.at);
    expect(await outboxOf(WITH)).toEqual([]);
    // Each message's row made by the relay from its outbox row: the same id, type and subject.
    expect(await messagesOf(WITH)).toEqual(messages.map((message) => ({ ...message, state: 'pending' })));
    const jobs = await jobsOf(DELIVERY_QUEUE, WITH);
    expect(jobs.map((job) => [job.data, job.group_id])).toEqual(
      messages
        .map((message) => message.id)
        .sort()
        .map((messageId) => [{ accountId: WITH, messageId }, 'whk_both']),
    );
    expect(jobs.every((job) => job.state === 'created' && job.as_the_queue_says)).toBe(true);
  });

  it('records event.updated for a change a receiver sees, not for what the service keeps for itself', async () => {
    const event = eventOf(WITH, 'evt_u1');
    await recordEvents(WITH, event);
    const before = (await recordedOf(WITH)).length;
    const moved = { ...event, time: new Date('1969-07-20T22:00:00Z'), revision: 1 };
    await transactions.exclusive(WITH, (repos) => repos.events.save(moved));

    const updated = (await recordedOf(WITH)).filter((message) => message.event_type === 'event.updated');
    expect(updated.map((message) => [message.endpoint_id, message.subject.id, message.subject.revision])).toEqual([
      ['whk_both', 'evt_u1', 1],
      ['whk_updates', 'evt_u1', 1],
    ]);
    expect(new Date(String(updated[0]?.subject.time))).toEqual(moved.time);
    expect((await recordedOf(WITH)).length).toBe(before + 2);

    // A backfill of the columns the service keeps for itself changes nothing a receiver sees.
    await database.sql.query(
      `UPDATE events SET writer_trace = 'backfilled', account_version = account_version + 1 WHERE account_id = $1`,
      [WITH],
    );
    expect((await recordedOf(WITH)).length).toBe(before + 2);
  });

  it('records in the transaction of the write, and nothing when it rolls back', async () => {
    const client = new Client({ connectionString: database.connectionString });
    await client.connect();
    try {
      const counts = async () => {
        const { rows } = await client.query<{ messages: number; waiting: number }>(
          `SELECT (SELECT count(*)::int FROM webhook_messages WHERE subject ->> 'id' = 'evt_rolled') AS messages,
                  (SELECT count(*)::int FROM webhook_outbox WHERE subject ->> 'id' = 'evt_rolled') AS waiting`,
        );
        return rows[0];
      };
      await client.query('BEGIN');
      await client.query(
        `INSERT INTO events (account_id, id, timeline_id, kind, time, original_time, description, location,
                             description_key, location_key, recorded_at, revision)
         VALUES ($1, 'evt_rolled', 'primary', 'arrival', now(), now(), 'Arrival', 'home', 'd', 'l', now(), 0)`,
        [WITH],
      );
      expect(await counts()).toEqual({ messages: 0, waiting: 1 });
      await client.query('ROLLBACK');
      expect(await counts()).toEqual({ messages: 0, waiting: 0 });
    } finally {
      await client.end();
    }
  });

  it('records nothing, and makes no job, for an account without an endpoint', async () => {
    const jobsBefore = await database.sql.query<{ jobs: number }>('SELECT count(*)::int AS jobs FROM pgboss.job', []);
    const event = eventOf(WITHOUT, 'evt_p1');
    await recordEvents(WITHOUT, event);
    await transactions.exclusive(WITHOUT, (repos) => repos.events.save({ ...event, revision: 1 }));

    expect(await recordedOf(WITHOUT)).toEqual([]);
    expect(await outboxOf(WITHOUT)).toEqual([]);
    expect(await database.sql.query('SELECT count(*)::int AS jobs FROM pgboss.job', [])).toEqual(jobsBefore);
  });

  it("tells the writing connection how many it recorded, by type: the service's count", async () => {
    const heard: RecordedMessages[] = [];
    const { prisma, sql } = createDatabaseClients(database.connectionString, {
      maxConnections: 1,
      onNotice: (notice) => {
        const recorded = recordedMessagesOf(notice);
        if (recorded) heard.push(recorded);
      },
    });
    try {
      await sql.query(
        `INSERT INTO events (account_id, id, timeline_id, kind, time, original_time, description, location,
                             description_key, location_key, recorded_at, revision)
         SELECT $1, 'evt_n' || n, 'primary', 'arrival', now(), now(), 'Arrival', 'home', 'd', 'l', now(), 0
           FROM generate_series(1, 3) AS n`,
        [WITH],
      );
      await sql.query(
        `INSERT INTO events (account_id, id, timeline_id, kind, time, original_time, description,
                         location, description_key, location_key, recorded_at, revision)
                       VALUES ($1, 'evt_quiet', 'primary', 'arrival', now(), now(), 'A', 'home', 'd', 'l', now(), 0)`,
        [WITHOUT],
      );
      expect(heard).toEqual([{ type: 'event.recorded', count: 3 }]);
    } finally {
      await prisma.$disconnect();
    }
  });

  it('tells it once the connection is back in the pool: after its transaction, so the messages are there', async () => {
    let heard = 0;
    const { prisma } = createDatabaseClients(database.connectionString, {
      maxConnections: 1,
      onNotice: (notice) => {
        if (recordedMessagesOf(notice)) heard += 1;
      },
    });
    try {
      const before = (await outboxOf(WITH)).length;
      await prisma.$transaction(async (transaction) => {
        await transaction.$executeRawUnsafe(
          `INSERT INTO events (account_id, id, timeline_id, kind, time, original_time, description, location,
                               description_key, location_key, recorded_at, revision)
           VALUES ($1, 'evt_in_transaction', 'primary', 'arrival', now(), now(), 'A', 'home', 'd', 'l', now(), 0)`,
          WITH,
        );
        await transaction.$executeRawUnsafe('SELECT 1');
        expect(heard).toBe(0);
      });
      expect(heard).toBe(1);
      expect(await outboxOf(WITH)).toHaveLength(before + 1);
    } finally {
      await prisma.$disconnect();
    }
  });
});

describe('timeline.window_closed', () => {
  const ACCOUNT = 'acc_windows';

  beforeAll(async () => {
    await anAccount(ACCOUNT);
  });

  /** A timeline made now by the account's unit of work, `ageMinutes` ago, with a window of `windowMinutes`. */
  async function aTimeline(id: string, windowMinutes: number, ageMinutes = 0): Promise<Timeline> {
    const timeline = Timeline.create({
      accountId: ACCOUNT,
      id,
      name: id,
      destinationTime: new Date('1969-07-20T20:17:40Z'),
      windowMinutes,
      now: new Date(Date.now() - ageMinutes * 60_000),
    });
    await transactions.exclusive(ACCOUNT, (repos) => repos.timelines.add(timeline));
    return timeline;
  }

  const dueOf = (timeline: Timeline) => new Date((timeline.deadline?.getTime() ?? 0) + 1_000);

  it('schedules a check of each open window when an endpoint begins to receive the type, and of new ones', async () => {
    const early = await aTimeline('tml_early', 30, 10);
    await aTimeline('tml_closed', 5, 10);
    expect(await jobsOf(WINDOW_CHECK_QUEUE, ACCOUNT)).toEqual([]);

    await anEndpoint(ACCOUNT, 'whk_windows', ['timeline.window_closed']);
    const later = await aTimeline('tml_later', 60);

    const checks = await jobsOf(WINDOW_CHECK_QUEUE, ACCOUNT);
    expect(checks.map((job) => [job.data, job.singleton_key, job.start_after])).toEqual([
      [{ accountId: ACCOUNT, timelineId: 'tml_early' }, `${ACCOUNT}/tml_early`, dueOf(early)],
      [{ accountId: ACCOUNT, timelineId: 'tml_later' }, `${ACCOUNT}/tml_later`, dueOf(later)],
    ]);
    expect(checks.every((job) => job.state === 'created' && job.as_the_queue_says)).toBe(true);

    // Disabled and enabled again, or a second endpoint: the checks waiting are not made twice.
    await database.sql.query(`UPDATE webhook_endpoints SET status = 'disabled' WHERE id = 'whk_windows'`, []);
    await database.sql.query(`UPDATE webhook_endpoints SET status = 'enabled' WHERE id = 'whk_windows'`, []);
    await anEndpoint(ACCOUNT, 'whk_windows_too', ['timeline.window_closed', 'event.recorded']);
    expect(await jobsOf(WINDOW_CHECK_QUEUE, ACCOUNT)).toEqual(checks);
  });

  it('records the message once per subscribed endpoint, relayed to its job, however often it is asked', async () => {
    const messages = new PostgresWebhookMessages(database.sql);
    const closed = (await aTimeline('tml_expired', 1, 2)).withStatus('expired');

    expect(await messages.recordWindowClosed(closed)).toBe(2);
    // Asked again while its messages wait in the outbox, and once they have their rows.
    expect(await messages.recordWindowClosed(closed)).toBe(0);

    const recorded = (await recordedOf(ACCOUNT)).filter((message) => message.event_type === 'timeline.window_closed');
    expect(recorded.map((message) => [message.endpoint_id, message.subject])).toEqual(
      ['whk_windows', 'whk_windows_too'].map((endpoint) => [
        endpoint,
        {
          account_id: ACCOUNT,
          id: 'tml_expired',
          name: 'tml_expired',
          destination_time: '1969-07-20T20:17:40.000Z',
          created_at: closed.createdAt.toISOString(),
          status: 'expired',
          window_minutes: 1,
        },
      ]),
    );
    expect(recorded.every((message) => /^msg_[0-9a-f]{32}$/.test(message.id))).toBe(true);
    await relay();
    expect(await messages.recordWindowClosed(closed)).toBe(0);
    expect(await relay()).toBe(0);
    const deliveries = await jobsOf(DELIVERY_QUEUE, ACCOUNT);
    expect(deliveries.map((job) => job.data.messageId).sort()).toEqual(recorded.map((message) => message.id).sort());
  });

  it("schedules a delivery at the time asked, in the endpoint's group", async () => {
    const at = new Date(Date.now() + 3_600_000);
    await new PostgresWebhookJobs(database.sql).scheduleDelivery(
      { accountId: ACCOUNT, messageId: 'msg_later', endpointId: 'whk_windows' },
      at,
    );

    const [job] = (await jobsOf(DELIVERY_QUEUE, ACCOUNT)).filter((row) => row.data.messageId === 'msg_later');
    expect(job).toMatchObject({ group_id: 'whk_windows', start_after: at, state: 'created', as_the_queue_says: true });
  });
});

describe('the relay', () => {
  const ACCOUNT = 'acc_relayed';

  beforeAll(async () => {
    await anAccount(ACCOUNT);
    await anEndpoint(ACCOUNT, 'whk_busy', ['event.recorded']);
    await anEndpoint(ACCOUNT, 'whk_quiet', ['event.updated']);
    // What the tests before left waiting, given its jobs: each test here starts from an empty outbox.
    while ((await relay()) > 0);
  });

  const dueJobsOf = async (endpoint: string) =>
    (await jobsOf(DELIVERY_QUEUE, ACCOUNT)).filter((job) => job.group_id === endpoint && job.state === 'created');

  it("gives each endpoint its oldest messages' jobs up to its bound, whatever another has waiting", async () => {
    const events = Array.from({ length: 12 }, (_, n) => eventOf(ACCOUNT, `evt_busy_${String(n).padStart(2, '0')}`));
    for (const event of events) await recordEvents(ACCOUNT, event);
    await transactions.exclusive(ACCOUNT, (repos) => repos.events.save({ ...events[0]!, revision: 1 }));
    const busyWaiting = (await outboxOf(ACCOUNT)).filter((row) => row.endpoint_id === 'whk_busy');
    expect(busyWaiting).toHaveLength(12);
    const oldest = (await recordedOf(ACCOUNT))
      .filter((message) => message.endpoint_id === 'whk_busy' && message.state === 'waiting')
      .sort((a, b) => String(a.subject.id).localeCompare(String(b.subject.id)))
      .slice(0, 4)
      .map((message) => message.id);

    // Four due for the busy endpoint; the quiet one's message is relayed beside them.
    expect(await relay(4, 500)).toBe(5);
    expect((await dueJobsOf('whk_busy')).map((job) => job.data.messageId).sort()).toEqual([...oldest].sort());
    expect(await dueJobsOf('whk_quiet')).toHaveLength(1);
    expect(await outboxOf(ACCOUNT)).toHaveLength(8);

    // At its bound, nothing more until its workers take some.
    expect(await relay(4, 500)).toBe(0);
    await database.sql.query(
      `UPDATE pgboss.job SET state = 'active' WHERE name = $1 AND group_id = 'whk_busy' AND state = 'created'`,
      [DELIVERY_QUEUE],
    );
    expect(await relay(4, 500)).toBe(4);
    expect(await outboxOf(ACCOUNT)).toHaveLength(4);
  });

  it('moves at most a batch a statement', async () => {
    await database.sql.query(`UPDATE pgboss.job SET state = 'active' WHERE name = $1 AND group_id = 'whk_busy'`, [
      DELIVERY_QUEUE,
    ]);
    expect(await relay(8, 3)).toBe(3);
    expect(await outboxOf(ACCOUNT)).toHaveLength(1);
  });

  // Another session holding the relay's lock: PGlite serves one session, whose own lock it re-takes.
  serverOnly(() => {
    it('leaves the messages to the relay at work, and says it is busy: one at a time in the instance', async () => {
      const client = new Client({ connectionString: database.connectionString });
      await client.connect();
      try {
        await client.query('BEGIN');
        await client.query(`SELECT pg_advisory_xact_lock(hashtext('relay_webhook_messages'))`);
        expect(await relay()).toBe(BUSY);
        expect(await outboxOf(ACCOUNT)).toHaveLength(1);
        await client.query('ROLLBACK');
      } finally {
        await client.end();
      }
      expect(await relay()).toBe(1);
    });
  });

  it("takes a disabled endpoint's waiting messages out of the outbox, failed", async () => {
    const before = (await outboxOf(ACCOUNT)).length;
    await recordEvents(ACCOUNT, eventOf(ACCOUNT, 'evt_busy_disabled'));
    expect(await outboxOf(ACCOUNT)).toHaveLength(before + 1);
    await database.sql.query(`UPDATE webhook_endpoints SET status = 'disabled' WHERE id = 'whk_busy'`, []);

    expect(await outboxOf(ACCOUNT)).toEqual([]);
    const [message] = (await messagesOf(ACCOUNT)).filter((row) => row.subject.id === 'evt_busy_disabled');
    expect(message).toMatchObject({ state: 'failed' });
  });
});

it("makes its queues as queues.ts says, which the jobs' settings are copied from", async () => {
  const rows = await database.sql.query<Record<string, unknown>>(
    `SELECT name, policy, retry_limit, retry_delay, retry_backoff, retry_delay_max, expire_seconds,
            deletion_seconds, heartbeat_seconds FROM pgboss.queue WHERE name = ANY($1) ORDER BY name`,
    [QUEUES.map((queue) => queue.name)],
  );
  expect(rows).toEqual(
    [...QUEUES]
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((queue) => ({
        name: queue.name,
        policy: queue.policy,
        retry_limit: queue.retryLimit,
        retry_delay: queue.retryDelay,
        retry_backoff: queue.retryBackoff,
        retry_delay_max: queue.retryDelayMax,
        expire_seconds: queue.expireInSeconds,
        deletion_seconds: queue.deleteAfterSeconds,
        heartbeat_seconds: queue.heartbeatSeconds,
      })),
  );
});
