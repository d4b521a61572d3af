// Deliveries from end to end, as a service process runs them (composition/job-queue.ts): an event
// written for an account with an endpoint is recorded with its job by the write's statement; the
// queue's worker renders, signs and sends it to a receiver on the loopback, and records each
// attempt, retrying on the schedule and disabling an endpoint that answers 410. Every delivery
// passes Standard Webhooks' own verification. On PostgreSQL (DATABASE_URL) and on the embedded PGlite.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { buildContainer } from '../../../src/composition/container';
import { type ProcessJobQueue, RecordedMessages } from '../../../src/composition/job-queue';
import { Timeline } from '../../../src/core/domain/timeline';
import { createDatabaseClients } from '../../../src/infrastructure/database/driver/prisma-client';
import { RELAY } from '../../../src/infrastructure/job-queue/message-relay';

import { aPausedTraveller } from '../../support/builders/traveller-builder';
import { anAccountRecord } from '../../support/contracts/subject';
import { plainRepositories } from '../../support/plain-repositories';
import { provisionTestDatabase, type TestDatabase } from '../../support/test-database';
import { waitFor } from '../../support/wait-for';
import { startInProcessQueue } from '../../support/webhook-delivery/in-process-queue';

jest.setTimeout(60_000);

const ACCOUNT = 'acc_1';
const SECRET = `whsec_${Buffer.from('a secret of thirty-two bytes ...').toString('base64')}`;

interface Received {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

let database: TestDatabase;
let pool: ReturnType<typeof createDatabaseClients>;
let queue: ProcessJobQueue;
let receiver: Server;
const received: Received[] = [];
/** What the receiver answers each request to a path, in turn; 204 once the list is spent. */
const answers = new Map<string, number[]>();

beforeAll(async () => {
  database = await provisionTestDatabase();
  const repos = plainRepositories(database);
  await repos.accounts.add(anAccountRecord(ACCOUNT));
  await repos.travellers.add(aPausedTraveller(ACCOUNT));
  await repos.timelines.add(Timeline.primary(ACCOUNT, new Date('2030-01-01T00:00:00Z')));
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '';
      received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(answers.get(path)?.shift() ?? 204).end('answered');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  // The writes' notices tell the relay, as a service process wires it; its untold looks an hour
  // apart, so every delivery here comes of a relay told by a write or by an attempt done.
  const recorded = new RecordedMessages(undefined);
  pool = createDatabaseClients(database.connectionString, { maxConnections: 2, onNotice: recorded.heard });
  // http to the loopback: WEBHOOK_ALLOW_PRIVATE_URLS on, as in development; a retry a second after each failure.
  const container = buildContainer({
    prisma: pool.prisma,
    sql: pool.sql,
    webhookAllowPrivateUrls: true,
    webhookRetrySchedule: [1, 1],
  });
  queue = await startInProcessQueue({ connectionString: database.connectionString, sql: pool.sql }, container, {
    recorded,
    relaySettings: { ...RELAY, everyMs: 3_600_000 },
  });
});
afterAll(async () => {
  await queue?.stop();
  await pool?.prisma.$disconnect();
  await new Promise((resolve) => receiver?.close(resolve));
  await database?.close();
});

/** An endpoint of the account at `path` of the receiver, receiving event.recorded. */
async function anEndpoint(id: string, path: string): Promise<void> {
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}${path}`;
  await database.sql.query(
    `INSERT INTO webhook_endpoints (account_id, id, url, event_types, status, secret, created_at)
     VALUES ($1, $2, $3, '{event.recorded}', 'enabled', $4, now())`,
    [ACCOUNT, id, url, SECRET],
  );
}

/** An event recorded by a write's statement, as the service's writes record them. */
async function anEvent(id: string): Promise<void> {
  // On the pool whose notices tell the relay, as the service's writes are.
  await pool.sql.query(
    `INSERT INTO events (account_id, id, timeline_id, kind, time, original_time, description, location,
                         description_key, location_key, recorded_at, revision)
     VALUES ($1, $2, 'primary', 'arrival', '1969-07-20T20:17:40Z', '1969-07-20T20:17:40Z', 'Landing',
             'Sea of Tranquility', 'd', 'l', now(), 0)`,
    [ACCOUNT, id],
  );
}

const at = (path: string) => received.filter((each) => each.path === path);

const signatureHeaders = (headers: IncomingHttpHeaders) => ({
  'webhook-id': String(headers['webhook-id']),
  'webhook-timestamp': String(headers['webhook-timestamp']),
  'webhook-signature': String(headers['webhook-signature']),
});

async function attemptsOf(endpointId: string) {
  return database.sql.query<{ attempt: number; status: number | null; next_attempt_at: Date | null }>(
    `SELECT attempt, status, next_attempt_at FROM webhook_attempts WHERE endpoint_id = $1 ORDER BY attempt`,
    [endpointId],
  );
}

/** The endpoint's row version: changed by any write of the row. */
async function rowVersionOf(endpointId: string): Promise<string | undefined> {
  const [row] = await database.sql.query<{ xmin: string }>(
    `SELECT xmin::text FROM webhook_endpoints WHERE account_id = $1 AND id = $2`,
    [ACCOUNT, endpointId],
  );
  return row?.xmin;
}

it('delivers a recorded event, signed as Standard Webhooks verifies, the event as the listings show it', async () => {
  await anEndpoint('whk_ok', '/ok');
  const endpointVersion = await rowVersionOf('whk_ok');
  await anEvent('evt_ok');

  const [delivery] = await waitFor(() => (at('/ok').length > 0 ? at('/ok') : undefined), {
    what: 'the delivery',
    timeoutMs: 20_000,
  });
  const payload = new Webhook(SECRET).verify(delivery?.body ?? '', signatureHeaders(delivery?.headers ?? {}));
  expect(payload).toEqual({
    type: 'event.recorded',
    timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
    data: {
      event: {
        event_id: 'evt_ok',
        time: '1969-07-20T20:17:40Z',
        description: 'Landing',
        location: 'Sea of Tranquility',
        timeline_id: 'primary',
        kind: 'arrival',
        original_time: '1969-07-20T20:17:40Z',
        manipulated: false,
      },
      revision: 0,
    },
  });
  expect(delivery?.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/);
  expect(delivery?.headers['content-type']).toBe('application/json');
  await waitFor(async () => ((await attemptsOf('whk_ok')).length === 1 ? true : undefined), {
    what: 'the attempt recorded',
    timeoutMs: 10_000,
  });
  const [message] = await database.sql.query<{ state: string; attempts: number; body: string }>(
    `SELECT state, attempts, body FROM webhook_messages WHERE endpoint_id = 'whk_ok'`,
    [],
  );
  expect(message).toEqual({ state: 'delivered', attempts: 1, body: delivery?.body });
  // A delivery to a healthy endpoint has nothing to change of it: its row is not written.
  expect(await rowVersionOf('whk_ok')).toBe(endpointVersion);
});

it('sends the body its message keeps, byte for byte, as a later version of the service does', async () => {
  await anEndpoint('whk_kept', '/kept');
  // Not what this version renders (its subject renders nothing): what an earlier attempt sent.
  const kept = '{"type":"event.recorded","timestamp":"2026-01-01T00:00:00Z","data":{"kept": true}}';
  await database.sql.query(
    `WITH "message" AS (
       INSERT INTO webhook_messages (account_id, id, endpoint_id, event_type, subject, body, created_at, state)
       VALUES ($1, 'msg_' || md5('kept'), 'whk_kept', 'event.recorded', '{}', $2, now(), 'pending')
       RETURNING account_id, id, endpoint_id)
     SELECT enqueue_webhook_delivery(account_id, id, endpoint_id, now()) FROM "message"`,
    [ACCOUNT, kept],
  );

  const [delivery] = await waitFor(() => (at('/kept').length > 0 ? at('/kept') : undefined), {
    what: 'the delivery',
    timeoutMs: 20_000,
  });
  expect(delivery?.body).toBe(kept);
  expect(() => new Webhook(SECRET).verify(kept, signatureHeaders(delivery?.headers ?? {}))).not.toThrow();
});

it('retries a message answered 500 on the schedule, with the same webhook-id and body, until a 2xx', async () => {
  answers.set('/flaky', [500, 500]);
  await anEndpoint('whk_flaky', '/flaky');
  await anEvent('evt_flaky');

  const deliveries = await waitFor(() => (at('/flaky').length >= 3 ? at('/flaky') : undefined), {
    what: 'three attempts',
    timeoutMs: 30_000,
  });
  expect(new Set(deliveries.map((each) => each.headers['webhook-id'])).size).toBe(1);
  expect(new Set(deliveries.map((each) => each.body)).size).toBe(1);
  for (const each of deliveries)
    expect(() => new Webhook(SECRET).verify(each.body, signatureHeaders(each.headers))).not.toThrow();
  const attempts = await waitFor(
    async () => {
      const rows = await attemptsOf('whk_flaky');
      return rows.length === 3 ? rows : undefined;
    },
    { what: 'three attempts recorded', timeoutMs: 10_000 },
  );
  expect(attempts.map((row) => [row.attempt, row.status, row.next_attempt_at !== null])).toEqual([
    [1, 500, true],
    [2, 500, true],
    [3, 204, false],
  ]);
  const [endpoint] = await database.sql.query<{ failing_since: Date | null; status: string }>(
    `SELECT failing_since, status FROM webhook_endpoints WHERE id = 'whk_flaky'`,
    [],
  );
  expect(endpoint).toEqual({ failing_since: null, status: 'enabled' });
  // Nothing more after the delivery.
  expect(at('/flaky')).toHaveLength(3);
});

it('disables an endpoint that answers 410 at once, the message failed, no retry', async () => {
  answers.set('/gone', [410]);
  await anEndpoint('whk_gone', '/gone');
  await anEvent('evt_gone');

  const endpoint = await waitFor(
    async () => {
      const [row] = await database.sql.query<{ status: string; disabled_reason: string | null }>(
        `SELECT status, disabled_reason FROM webhook_endpoints WHERE id = 'whk_gone'`,
        [],
      );
      return row?.status === 'disabled' ? row : undefined;
    },
    { what: 'the endpoint disabled', timeoutMs: 20_000 },
  );
  expect(endpoint).toEqual({ status: 'disabled', disabled_reason: 'gone' });
  const [message] = await database.sql.query<{ state: string; attempts: number }>(
    `SELECT state, attempts FROM webhook_messages WHERE endpoint_id = 'whk_gone'`,
    [],
  );
  expect(message).toEqual({ state: 'failed', attempts: 1 });
  expect(at('/gone')).toHaveLength(1);
});
