// An endpoint's delivery log from end to end: changes written through the API are delivered by the
// job queue's workers to a receiver on the loopback, and GET .../deliveries shows every attempt.
// On PostgreSQL (DATABASE_URL) and on the embedded PGlite, as every HTTP suite.
import type { IncomingHttpHeaders } from 'node:http';
import { Webhook } from 'standardwebhooks';
import request from 'supertest';
import type { ProcessJobQueue } from '../../src/composition/job-queue';
import type { RecordedMessage } from '../../src/core/ports/webhook-deliveries';
import { ApiWebhookPayloads } from '../../src/interfaces/http/presenters/webhook-payloads';
import { asAccount, SPEC_DATE_TIME } from '../support/http/as-account';
import { type OpenApiDocument, OpenApiContract } from '../support/http/openapi-contract';
import { startTestApp, type TestAccount, type TestApp } from '../support/http/test-app';
import { waitFor } from '../support/wait-for';
import { startInProcessQueue } from '../support/webhook-delivery/in-process-queue';
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
  queue = await startInProcessQueue(t, t.container);
});
afterAll(async () => {
  await queue?.stop();
  await receiver?.close();
  await t?.close();
});

const signatureHeaders = (headers: IncomingHttpHeaders) => ({
  'webhook-id': String(headers['webhook-id']),
  'webhook-timestamp': String(headers['webhook-timestamp']),
  'webhook-signature': String(headers['webhook-signature']),
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

/** What reached the receiver at `path` once it holds `count` requests. */
const receivedAt = (path: string, count: number) =>
  waitFor(() => (at(path).length >= count ? at(path) : undefined), {
    what: `${count} requests at ${path}`,
    timeoutMs: 30_000,
  });

const stateOf = (account: TestAccount, messageId: string) =>
  t.prisma.webhookMessage.findFirstOrThrow({
    where: { accountId: account.id, id: messageId },
    select: { state: true, attempts: true },
  });

describe('POST /v1/webhook-endpoints/{endpoint_id}/test', () => {
  it('sends a webhook.test message, whatever the endpoint subscribes to, signed and listed as any', async () => {
    const me = await t.signUp();
    const endpoint = await anEndpoint(me, '/tested');

    const response = await client(me).post(`${PATH}/${endpoint.id}/test`);

    expect(response.status).toBe(202);
    expect(response.body).toEqual({
      message_id: expect.stringMatching(MESSAGE_ID),
      event_type: 'webhook.test',
      state: 'pending',
      attempts: 0,
    });
    const [delivery] = await receivedAt('/tested', 1);
    expect(delivery?.headers['webhook-id']).toBe(response.body.message_id);
    const payload = new Webhook(endpoint.secret).verify(
      delivery?.body ?? '',
      signatureHeaders(delivery?.headers ?? {}),
    );
    expect(payload).toEqual({
      type: 'webhook.test',
      timestamp: expect.stringMatching(SPEC_DATE_TIME),
      data: { endpoint_id: endpoint.id },
    });
    const page = await deliveriesOnce(me, endpoint.id, 1);
    expect(page.body.deliveries[0]).toMatchObject({
      message_id: response.body.message_id,
      event_type: 'webhook.test',
      attempt: 1,
      status: 200,
    });
  });
});

describe('POST /v1/webhook-endpoints/{endpoint_id}/deliveries/{message_id}/resend', () => {
  it('sends a delivered message again: the same webhook-id and body, signed with the current secret', async () => {
    const me = await t.signUp();
    const endpoint = await anEndpoint(me, '/resent');
    await aTravel(me);
    const [first] = await receivedAt('/resent', 1);
    const messageId = String(first?.headers['webhook-id']);
    await deliveriesOnce(me, endpoint.id, 1);
    const rolled = (await client(me).post(`${PATH}/${endpoint.id}/roll-secret`)).body.secret;

    const response = await client(me).post(`${PATH}/${endpoint.id}/deliveries/${messageId}/resend`);

    expect(response.status).toBe(202);
    expect(response.body).toEqual({
      message_id: messageId,
      event_type: 'event.recorded',
      state: 'pending',
      attempts: 1,
    });
    const [, again] = await receivedAt('/resent', 2);
    expect(again?.headers['webhook-id']).toBe(messageId);
    expect(again?.body).toBe(first?.body);
    // Signed by the new secret (and, for a day, the rolled one too).
    expect(() => new Webhook(rolled).verify(again?.body ?? '', signatureHeaders(again?.headers ?? {}))).not.toThrow();
    expect(() =>
      new Webhook(endpoint.secret).verify(first?.body ?? '', signatureHeaders(first?.headers ?? {})),
    ).not.toThrow();
    const page = await deliveriesOnce(me, endpoint.id, 2);
    expect(page.body.deliveries.map((each: { attempt: number }) => each.attempt)).toEqual([2, 1]);
    expect(await stateOf(me, messageId)).toEqual({ state: 'delivered', attempts: 2 });
  });

  it('gives a failed message one more attempt, with no retry after it, then another when asked', async () => {
    const me = await t.signUp();
    // Three attempts on the schedule [1, 1], all failed; the first resend fails too; the second delivers.
    answers.set('/down', [500, 500, 500, 503]);
    const endpoint = await anEndpoint(me, '/down');
    await aTravel(me);
    await deliveriesOnce(me, endpoint.id, 3);
    const messageId = String(at('/down')[0]?.headers['webhook-id']);
    expect(await stateOf(me, messageId)).toEqual({ state: 'failed', attempts: 3 });

    const resend = () => client(me).post(`${PATH}/${endpoint.id}/deliveries/${messageId}/resend`);
    expect((await resend()).body).toMatchObject({ state: 'pending', attempts: 3 });
    const [fourth] = (await deliveriesOnce(me, endpoint.id, 4)).body.deliveries;
    expect(fourth).toMatchObject({ attempt: 4, status: 503, next_attempt_at: null });
    expect(await stateOf(me, messageId)).toEqual({ state: 'failed', attempts: 4 });
    // Past when the schedule's retry would have come: none came.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(at('/down')).toHaveLength(4);

    expect((await resend()).status).toBe(202);
    const [fifth] = (await deliveriesOnce(me, endpoint.id, 5)).body.deliveries;
    expect(fifth).toMatchObject({ attempt: 5, status: 200 });
    expect(await stateOf(me, messageId)).toEqual({ state: 'delivered', attempts: 5 });
    expect(new Set(at('/down').map((each) => each.body)).size).toBe(1);
  });
});

describe('resend and test refused', () => {
  it('refuses both for a disabled endpoint, 409 webhook_endpoint_disabled, queueing nothing', async () => {
    const me = await t.signUp();
    const endpoint = await anEndpoint(me, '/disabled');
    const messageId = (await client(me).post(`${PATH}/${endpoint.id}/test`)).body.message_id;
    await receivedAt('/disabled', 1);
    await deliveriesOnce(me, endpoint.id, 1);
    await client(me).post(`${PATH}/${endpoint.id}/disable`);

    for (const path of [`${endpoint.id}/test`, `${endpoint.id}/deliveries/${messageId}/resend`]) {
      const response = await client(me).post(`${PATH}/${path}`);
      expect(response.status).toBe(409);
      expect(response.body).toMatchObject({ code: 'webhook_endpoint_disabled', endpoint_id: endpoint.id });
    }
    expect(await t.prisma.webhookMessage.count({ where: { accountId: me.id } })).toBe(1);
    expect(await stateOf(me, messageId)).toEqual({ state: 'delivered', attempts: 1 });
  });

  it("answers another account's endpoint or message, or none, 404, changing nothing", async () => {
    const owner = await t.signUp();
    const theirs = await anEndpoint(owner, '/owner');
    const theirMessage = (await client(owner).post(`${PATH}/${theirs.id}/test`)).body.message_id;
    const me = await t.signUp();
    const mine = await anEndpoint(me, '/mine');
    const myOther = await anEndpoint(me, '/mine-too');
    const myMessage = (await client(me).post(`${PATH}/${myOther.id}/test`)).body.message_id;
    // Their attempts recorded: nothing changes them after.
    await deliveriesOnce(owner, theirs.id, 1);
    await deliveriesOnce(me, myOther.id, 1);
    const messages = () =>
      t.prisma.webhookMessage.findMany({ where: { accountId: { in: [owner.id, me.id] } }, orderBy: { id: 'asc' } });
    const before = await messages();
    const unknownEndpoint = `whk_${'0'.repeat(32)}`;

    for (const id of [theirs.id, unknownEndpoint]) {
      for (const path of [`${id}/test`, `${id}/deliveries/${theirMessage}/resend`]) {
        const response = await client(me).post(`${PATH}/${path}`);
        expect(response.status).toBe(404);
        expect(response.body).toMatchObject({ code: 'webhook_endpoint_not_found', endpoint_id: id });
      }
    }
    // Another account's message, another endpoint's, none, and what is no message id at all.
    for (const messageId of [theirMessage, myMessage, `msg_${'0'.repeat(32)}`, 'not-a-message']) {
      const response = await client(me).post(`${PATH}/${mine.id}/deliveries/${messageId}/resend`);
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ code: 'webhook_message_not_found', message_id: messageId });
    }
    expect(await messages()).toEqual(before);
  });

  it('refuses a body, which neither takes, 400 naming it', async () => {
    const me = await t.signUp();
    const endpoint = await anEndpoint(me, '/bodies');

    const response = await client(me).post(`${PATH}/${endpoint.id}/test`, { event_type: 'event.recorded' });

    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([{ field: '(body)', message: expect.any(String) }]);
    expect(await t.prisma.webhookMessage.count({ where: { accountId: me.id } })).toBe(0);
  });
});

describe("the OpenAPI document's webhooks map", () => {
  /** The schema of a message type's body, as GET /openapi.json serves it. */
  async function payloadSchemas() {
    const document = (await request(t.app).get('/openapi.json').expect(200)).body;
    const contract = new OpenApiContract(document as OpenApiDocument);
    const schemaOf = (type: string) =>
      document.webhooks?.[type]?.post?.requestBody?.content?.['application/json']?.schema;
    return { contract, schemaOf, types: Object.keys(document.webhooks ?? {}) };
  }

  const aMessage = (eventType: string, subject: object): RecordedMessage => ({
    accountId: 'acc_1',
    id: `msg_${'1'.repeat(32)}`,
    endpointId: `whk_${'2'.repeat(32)}`,
    eventType,
    subject,
    body: null,
    createdAt: new Date('2026-11-29T08:00:00Z'),
    state: 'pending',
    attempts: 0,
    origin: null,
    lastAttempt: null,
  });

  it('describes each type the service renders, and each rendered body conforms to its schema', async () => {
    const { contract, schemaOf, types } = await payloadSchemas();
    // Rows as the recording statement's to_jsonb writes them.
    const event = {
      account_id: 'acc_1',
      id: `evt_${'3'.repeat(32)}`,
      timeline_id: 'primary',
      kind: 'manipulation',
      time: '1969-07-20T21:00:00+00:00',
      original_time: '1969-07-20T20:17:40+00:00',
      description: 'Landing',
      location: 'Sea of Tranquility',
      revision: 2,
    };
    const timeline = {
      account_id: 'acc_1',
      id: `tml_${'4'.repeat(32)}`,
      name: 'Apollo',
      destination_time: '1969-07-20T20:17:40.000Z',
      created_at: '2026-11-29T07:00:00.000Z',
      status: 'expired',
      window_minutes: 12,
    };
    const subjects: Record<string, object> = {
      'event.recorded': event,
      'event.updated': event,
      'timeline.window_closed': timeline,
      'webhook.test': { endpoint_id: `whk_${'2'.repeat(32)}` },
    };
    expect(types).toEqual(Object.keys(subjects));
    const payloads = new ApiWebhookPayloads();
    for (const [type, subject] of Object.entries(subjects)) {
      const body = JSON.parse(payloads.render(aMessage(type, subject)));
      expect(body.type).toBe(type);
      expect([type, contract.violations(schemaOf(type), body)]).toEqual([type, []]);
    }
  });

  it('holds what receivers were sent in this file to those schemas', async () => {
    const { contract, schemaOf } = await payloadSchemas();
    expect(receiver.received.length).toBeGreaterThan(0);
    for (const { body } of receiver.received) {
      const payload = JSON.parse(body);
      expect(contract.violations(schemaOf(payload.type), payload)).toEqual([]);
    }
  });
});
