// An endpoint's delivery log from end to end: changes written through the API are delivered by the
// job queue's workers to a receiver on the loopback, and GET .../deliveries shows every attempt.
// On PostgreSQL (DATABASE_URL) and on the embedded PGlite, as every HTTP suite.
import { pino } from 'pino';
import { type ProcessJobQueue, startJobQueue } from '../../src/composition/job-queue';
import { asAccount, SPEC_DATE_TIME } from '../support/http/as-account';
import { startTestApp, type TestAccount, type TestApp } from '../support/http/test-app';
import { waitFor } from '../support/wait-for';
import { closedPort, type LocalReceiver, startReceiver } from '../support/webhook-delivery/local-receiver';

jest.setTimeout(60_000);

const PATH = '/v1/webhook-endpoints';
const MESSAGE_ID = /^msg_[0-9a-f]{32}$/;

let t: TestApp;
let queue: ProcessJobQueue;
let receiver: LocalReceiver;
/** What the receiver answers each request to a path, in turn; 200 once the list is spent. */
const answers = new Map<string, number[]>();

beforeAll(async () => {
  // http to the loopback, as in development; a retry a second after each failure.
  t = await startTestApp({ webhookAllowPrivateUrls: true, webhookRetrySchedule: [1, 1] });
  receiver = await startReceiver((response, { url }) => {
    const status = answers.get(url)?.shift() ?? 200;
    response.writeHead(status).end(`answer ${status} to attempt ${at(url).length}`);
  });
  queue = await startJobQueue({
    database: { connectionString: t.connectionString, sql: t.sql },
    container: t.container,
    logger: pino({ level: 'silent' }),
    metrics: undefined,
    graceMs: 1_000,
  });
});
afterAll(async () => {
  await queue?.stop();
  await receiver?.close();
  await t?.close();
});

const at = (path: string) => receiver.received.filter((each) => each.url === path);
const client = (account: TestAccount) => asAccount(t, account);

/** An endpoint of the account at `path` of the receiver, receiving event.recorded: its id and secret. */
async function anEndpoint(account: TestAccount, path: string): Promise<{ id: string; secret: string }> {
  const url = `http://127.0.0.1:${receiver.port}${path}`;
  const response = await client(account).post(PATH, { url, event_types: ['event.recorded'] });
  expect(response.status).toBe(201);
  return { id: response.body.id, secret: response.body.secret };
}

/** An arrival recorded by the API's own write: one event.recorded message per endpoint. */
async function aTravel(account: TestAccount, n = 0): Promise<void> {
  const response = await client(account).post('/v1/travel', {
    destination_time: `1969-07-20T20:${String(n).padStart(2, '0')}:00Z`,
    location: 'Sea of Tranquility',
  });
  expect(response.status).toBe(200);
}

/** The endpoint's listing once it holds `count` attempts. */
async function deliveriesOnce(account: TestAccount, endpointId: string, count: number) {
  return waitFor(
    async () => {
      const page = await client(account).get(`${PATH}/${endpointId}/deliveries`, { limit: 100 });
      return page.body.deliveries?.length === count ? page : undefined;
    },
    { what: `${count} attempts listed`, timeoutMs: 30_000 },
  );
}

describe('GET /v1/webhook-endpoints/{endpoint_id}/deliveries', () => {
  it('lists every attempt, newest first, with its status, answer and the retry it scheduled', async () => {
    const me = await t.signUp();
    answers.set('/flaky', [500, 500]);
    const endpoint = await anEndpoint(me, '/flaky');
    await aTravel(me);

    const page = await deliveriesOnce(me, endpoint.id, 3);

    expect(page.status).toBe(200);
    expect(page.body.next_cursor).toBeNull();
    const [third, second, first] = page.body.deliveries;
    const messageId = at('/flaky')[0]?.headers['webhook-id'];
    expect(messageId).toMatch(MESSAGE_ID);
    expect(first).toEqual({
      message_id: messageId,
      event_type: 'event.recorded',
      attempt: 1,
      attempted_at: expect.stringMatching(SPEC_DATE_TIME),
      status: 500,
      error: null,
      duration_ms: expect.any(Number),
      answer: 'answer 500 to attempt 1',
      next_attempt_at: expect.stringMatching(SPEC_DATE_TIME),
    });
    expect(second).toMatchObject({ attempt: 2, status: 500, answer: 'answer 500 to attempt 2' });
    expect(second.next_attempt_at).toEqual(expect.stringMatching(SPEC_DATE_TIME));
    expect(third).toMatchObject({ attempt: 3, status: 200, error: null, answer: 'answer 200 to attempt 3' });
    expect(third.next_attempt_at).toBeNull();
    expect(new Set(page.body.deliveries.map((each: { message_id: string }) => each.message_id))).toEqual(
      new Set([messageId]),
    );
    const times = page.body.deliveries.map((each: { attempted_at: string }) => each.attempted_at);
    expect([...times].sort().reverse()).toEqual(times);
  });

  it('shows an attempt that had no answer with its error and no status', async () => {
    const me = await t.signUp();
    const created = await client(me).post(PATH, {
      url: `http://127.0.0.1:${await closedPort()}/nobody`,
      event_types: ['event.recorded'],
    });
    await aTravel(me);

    const page = await deliveriesOnce(me, created.body.id, 1);

    expect(page.body.deliveries[0]).toMatchObject({ attempt: 1, status: null, error: 'refused', answer: '' });
  });

  it('pages through next_cursor, every attempt once, in the same order as one page', async () => {
    const me = await t.signUp();
    answers.set('/paged', [503, 503, 500]);
    const endpoint = await anEndpoint(me, '/paged');
    for (let n = 0; n < 3; n++) await aTravel(me, n);
    const whole = (await deliveriesOnce(me, endpoint.id, 6)).body.deliveries;

    const listed: unknown[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await client(me).get(
        `${PATH}/${endpoint.id}/deliveries`,
        cursor ? { limit: 4, cursor } : { limit: 4 },
      );
      expect(page.status).toBe(200);
      listed.push(...page.body.deliveries);
      cursor = page.body.next_cursor;
      pages += 1;
    } while (cursor);

    expect(pages).toBe(2);
    expect(listed).toEqual(whole);
    expect((await client(me).get(`${PATH}/${endpoint.id}/deliveries`)).body.deliveries).toHaveLength(6);
  });

  it("answers another account's endpoint, or none, 404 webhook_endpoint_not_found, listing nothing", async () => {
    const owner = await t.signUp();
    const endpoint = await anEndpoint(owner, '/theirs');
    await aTravel(owner);
    await deliveriesOnce(owner, endpoint.id, 1);
    const me = await t.signUp();

    for (const id of [endpoint.id, `whk_${'0'.repeat(32)}`]) {
      const response = await client(me).get(`${PATH}/${id}/deliveries`);
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ code: 'webhook_endpoint_not_found', endpoint_id: id });
      expect(response.text).not.toContain('deliveries');
    }
  });

  it.each([
    ['a limit of 0', { limit: 0 }, 'limit'],
    ['a limit past 100', { limit: 101 }, 'limit'],
    ['a limit that is no number', { limit: 'ten' }, 'limit'],
    ['a cursor it did not write', { cursor: 'bm90LWEtY3Vyc29y' }, 'cursor'],
    [
      "an endpoints listing's cursor",
      { cursor: Buffer.from(`0:whk_${'0'.repeat(32)}`).toString('base64url') },
      'cursor',
    ],
    ['an unknown parameter', { status: 500 }, 'status'],
  ])('refuses %s, 400 naming the field', async (_label, query, field) => {
    const me = await t.signUp();
    const endpoint = await anEndpoint(me, '/refusals');

    const response = await client(me).get(`${PATH}/${endpoint.id}/deliveries`, query);

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'validation_failed' });
    expect(response.body.errors).toEqual([{ field, message: expect.any(String) }]);
  });
});
