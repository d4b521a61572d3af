// PostgresWebhookDeliveries' listing of an endpoint's attempts (GET .../deliveries) on PostgreSQL
// (or PGlite without DATABASE_URL): newest first, then by message and attempt, each with its
// message's event type, and paged by the cursor ListWebhookDeliveries makes of a page's last
// attempt, every attempt once whatever page size cuts between attempts of one instant.
import type { RecordedAttempt, WebhookAttemptCursor } from '../../../src/core/ports/webhook-deliveries';
import { PostgresWebhookDeliveries } from '../../../src/infrastructure/persistence/postgres/webhook-deliveries';
import { anAccountRecord } from '../../support/contracts/subject';
import { plainRepositories } from '../../support/plain-repositories';
import { provisionTestDatabase, type TestDatabase } from '../../support/test-database';
import { anEndpointAt } from '../../support/webhook-delivery/webhook-rows';

jest.setTimeout(30_000);

const ACCOUNT = 'acc_1';
const OTHER_ACCOUNT = 'acc_2';
const ENDPOINT = 'whk_1';
const OTHER_ENDPOINT = 'whk_2';
const T1 = new Date('2026-11-29T08:00:00.000Z');
const T2 = new Date('2026-11-29T08:00:01.000Z');
const T3 = new Date('2026-11-29T08:00:02.000Z');

/** Which attempt: message and number. */
type Key = readonly [string, number];

let database: TestDatabase;
let deliveries: PostgresWebhookDeliveries;

async function aMessage(account: string, id: string, endpoint: string, eventType: string): Promise<void> {
  await database.sql.query(
    `INSERT INTO webhook_messages (account_id, id, endpoint_id, event_type, subject, created_at, state)
     VALUES ($1, $2, $3, $4, '{}', $5, 'delivered')`,
    [account, id, endpoint, eventType, T1.toISOString()],
  );
}

async function anAttempt(account: string, endpoint: string, [messageId, attempt]: Key, at: Date): Promise<void> {
  await database.sql.query(
    `INSERT INTO webhook_attempts (account_id, message_id, attempt, endpoint_id, attempted_at, status, error,
                                   duration_ms, answer, next_attempt_at)
     VALUES ($1, $2, $3, $4, $5, 500, NULL, 12, $6, $7)`,
    [account, messageId, attempt, endpoint, at.toISOString(), `answer to ${messageId}/${attempt}`, T3.toISOString()],
  );
}

beforeAll(async () => {
  database = await provisionTestDatabase();
  deliveries = new PostgresWebhookDeliveries(database.prisma, database.sql);
  const repos = plainRepositories(database);
  for (const account of [ACCOUNT, OTHER_ACCOUNT]) await repos.accounts.add(anAccountRecord(account));
  for (const [account, endpoint] of [
    [ACCOUNT, ENDPOINT],
    [ACCOUNT, OTHER_ENDPOINT],
    [OTHER_ACCOUNT, ENDPOINT],
  ] as const)
    await anEndpointAt(database.sql, account, endpoint, 'https://hooks.example/in');
  await aMessage(ACCOUNT, 'msg_a', ENDPOINT, 'event.recorded');
  await aMessage(ACCOUNT, 'msg_b', ENDPOINT, 'webhook.test');
  await aMessage(ACCOUNT, 'msg_c', ENDPOINT, 'event.updated');
  // Five of the endpoint's attempts share T2, across three messages.
  await anAttempt(ACCOUNT, ENDPOINT, ['msg_a', 1], T1);
  await anAttempt(ACCOUNT, ENDPOINT, ['msg_c', 2], T2);
  await anAttempt(ACCOUNT, ENDPOINT, ['msg_a', 3], T2);
  await anAttempt(ACCOUNT, ENDPOINT, ['msg_b', 1], T2);
  await anAttempt(ACCOUNT, ENDPOINT, ['msg_c', 1], T2);
  await anAttempt(ACCOUNT, ENDPOINT, ['msg_a', 2], T2);
  await anAttempt(ACCOUNT, ENDPOINT, ['msg_b', 2], T3);
  // The same instants at another endpoint of the account, and at another account's endpoint of the same id.
  await aMessage(ACCOUNT, 'msg_x', OTHER_ENDPOINT, 'event.recorded');
  await anAttempt(ACCOUNT, OTHER_ENDPOINT, ['msg_x', 1], T2);
  await aMessage(OTHER_ACCOUNT, 'msg_a', ENDPOINT, 'event.recorded');
  await anAttempt(OTHER_ACCOUNT, ENDPOINT, ['msg_a', 1], T2);
});
afterAll(() => database?.close());

/** Newest first; within an instant by message, then attempt. */
const IN_ORDER: readonly Key[] = [
  ['msg_b', 2],
  ['msg_a', 2],
  ['msg_a', 3],
  ['msg_b', 1],
  ['msg_c', 1],
  ['msg_c', 2],
  ['msg_a', 1],
];

const keysOf = (attempts: readonly RecordedAttempt[]): Key[] =>
  attempts.map((attempt) => [attempt.messageId, attempt.attempt]);

const page = (limit: number, after: WebhookAttemptCursor | null) =>
  deliveries.listAttempts({ accountId: ACCOUNT, endpointId: ENDPOINT }, { limit, after });

describe('PostgresWebhookDeliveries.listAttempts', () => {
  it("lists the endpoint's attempts alone, newest first, then by message and attempt, each with its type", async () => {
    const attempts = await page(100, null);

    expect(keysOf(attempts)).toEqual(IN_ORDER);
    expect(attempts[0]).toEqual({
      messageId: 'msg_b',
      eventType: 'webhook.test',
      attempt: 2,
      attemptedAt: T3,
      status: 500,
      error: null,
      durationMs: 12,
      answer: 'answer to msg_b/2',
      nextAttemptAt: T3,
    });
    expect(attempts.map((attempt) => attempt.eventType)).toEqual([
      'webhook.test',
      'event.recorded',
      'event.recorded',
      'webhook.test',
      'event.updated',
      'event.updated',
      'event.recorded',
    ]);
  });

  it.each([1, 2, 3, 4, 5, 6])(
    'pages of %i, each after the last of the one before, list every attempt once in the same order',
    async (limit) => {
      const listed: Key[] = [];
      let after: WebhookAttemptCursor | null = null;
      for (let pages = 0; pages <= IN_ORDER.length; pages++) {
        const attempts = await page(limit, after);
        expect(attempts.length).toBeLessThanOrEqual(limit);
        listed.push(...keysOf(attempts));
        const last = attempts[attempts.length - 1];
        if (attempts.length < limit || !last) break;
        after = { attemptedAt: last.attemptedAt, messageId: last.messageId, attempt: last.attempt };
      }

      expect(listed).toEqual(IN_ORDER);
    },
  );

  it('goes on after a cursor within an instant: its later attempts, then later messages', async () => {
    const after = (messageId: string, attempt: number) => page(100, { attemptedAt: T2, messageId, attempt });

    expect(keysOf(await after('msg_a', 2))).toEqual(IN_ORDER.slice(2));
    expect(keysOf(await after('msg_a', 3))).toEqual(IN_ORDER.slice(3));
    // A cursor of an attempt that is not there (deleted since) goes on from where it would be.
    expect(keysOf(await after('msg_b', 0))).toEqual(IN_ORDER.slice(3));
    expect(keysOf(await page(100, { attemptedAt: T1, messageId: 'msg_a', attempt: 1 }))).toEqual([]);
  });
});
