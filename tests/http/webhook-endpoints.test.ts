import request from 'supertest';
import { MAX_WEBHOOK_ENDPOINTS } from '../../src/core/domain/webhook-endpoint';
import { SPEC_DATE_TIME } from '../support/http/as-account';
import { startTestApp, type TestAccount, type TestApp } from '../support/http/test-app';
import { accountState } from '../support/isolation/account-state';

const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
const ENDPOINT_ID = /^whk_[0-9a-f]{32}$/;
const HOUR = 3_600_000;
const PATH = '/v1/webhook-endpoints';
const VALID = { url: 'https://example.com/hooks', event_types: ['event.recorded', 'event.updated'] };

// The endpoint management API: each route's answer, its refusals, and what it leaves stored.
describe('webhook endpoints', () => {
  let t: TestApp;
  let me: TestAccount;
  beforeAll(async () => {
    t = await startTestApp();
  });
  beforeEach(async () => {
    me = await t.signUp();
  });
  afterAll(() => t.close());

  const client = (account: TestAccount) => ({
    post: (path: string, body?: object) => {
      const sent = request(t.app).post(path).set('Authorization', account.auth);
      return body === undefined ? sent : sent.send(body);
    },
    get: (path: string, query: Record<string, string | number> = {}) =>
      request(t.app).get(path).set('Authorization', account.auth).query(query),
    delete: (path: string) => request(t.app).delete(path).set('Authorization', account.auth),
  });
  const mine = () => client(me);
  const create = (body: object = VALID) => mine().post(PATH, body);
  const stored = (id: string) => t.prisma.webhookEndpoint.findFirst({ where: { accountId: me.id, id } });
  const state = () => accountState(t.prisma, me.id, ['last_used_at']);

  describe('POST /v1/webhook-endpoints', () => {
    it('registers an enabled endpoint and answers its secret, only this once', async () => {
      const response = await create({ ...VALID, url: 'https://Example.com:443/hooks', description: 'Production' });

      expect(response.status).toBe(201);
      expect(response.body).toEqual({
        id: expect.stringMatching(ENDPOINT_ID),
        url: 'https://example.com/hooks',
        event_types: ['event.recorded', 'event.updated'],
        description: 'Production',
        status: 'enabled',
        disabled_reason: null,
        secret: expect.stringMatching(SECRET),
        created_at: expect.stringMatching(SPEC_DATE_TIME),
      });
      expect(response.headers.location).toBe(`${PATH}/${response.body.id}`);
      expect(await stored(response.body.id)).toMatchObject({
        url: 'https://example.com/hooks',
        eventTypes: ['event.recorded', 'event.updated'],
        status: 'enabled',
        secret: response.body.secret,
        previousSecret: null,
      });
      const read = await mine().get(`${PATH}/${response.body.id}`);
      expect(read.text).not.toContain(response.body.secret);
    });

    it('stores no description when none is given, and gives each endpoint a secret of its own', async () => {
      const first = await create({ url: 'https://example.com/a', event_types: ['timeline.window_closed'] });
      const second = await create({ url: 'https://example.com/b', event_types: ['timeline.window_closed'] });
      expect(first.body.description).toBeNull();
      expect(first.body.secret).not.toBe(second.body.secret);
    });

    it.each([
      ['no url', { event_types: ['event.recorded'] }, 'url', 'url is required'],
      ['an http url', { ...VALID, url: 'http://example.com/hooks' }, 'url', 'url must be an https URL'],
      ['a url that is not one', { ...VALID, url: 'example.com' }, 'url', 'must be an absolute URL'],
      ['credentials in the url', { ...VALID, url: 'https://a:b@example.com/' }, 'url', 'user name or password'],
      ['a fragment', { ...VALID, url: 'https://example.com/#x' }, 'url', 'must not have a #fragment'],
      ['a url too long', { ...VALID, url: `https://example.com/${'a'.repeat(2_048)}` }, 'url', '2048 characters'],
      ['no event types', { url: VALID.url }, 'event_types', 'event_types is required'],
      ['an empty list', { ...VALID, event_types: [] }, 'event_types', 'at least one event type'],
      ['an unknown type', { ...VALID, event_types: ['event.deleted'] }, 'event_types', 'must name only'],
      ['webhook.test', { ...VALID, event_types: ['webhook.test'] }, 'event_types', 'must name only'],
      ['a type twice', { ...VALID, event_types: ['event.updated', 'event.updated'] }, 'event_types', 'twice'],
      ['a list of text', { ...VALID, event_types: 'event.recorded' }, 'event_types', 'must be an array'],
      ['a blank description', { ...VALID, description: '  ' }, 'description', 'white space'],
      ['a null description', { ...VALID, description: null }, 'description', 'must be a string'],
      ['an unknown field', { ...VALID, secret: 'whsec_mine' }, 'secret', 'is not a known field'],
    ])('refuses %s, 400 naming the field, and stores nothing', async (_label, body, field, message) => {
      const before = await state();
      const response = await create(body);

      expect(response.status).toBe(400);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.body).toMatchObject({ code: 'validation_failed' });
      expect(response.body.errors).toEqual([{ field, message: expect.stringContaining(message) }]);
      expect(await state()).toEqual(before);
    });

    it.each([
      ['loopback', 'https://127.0.0.1/hooks', 'address_not_allowed'],
      ['a private address', 'https://10.0.0.1/hooks', 'address_not_allowed'],
      ['the cloud metadata address', 'https://169.254.169.254/latest', 'address_not_allowed'],
      ['IPv6 loopback', 'https://[::1]/hooks', 'address_not_allowed'],
      ['a name that resolves to loopback', 'https://loopback.example.com/hooks', 'address_not_allowed'],
      ['a name that resolves to none', 'https://nowhere.invalid/hooks', 'dns'],
    ])('refuses %s, 400 webhook_url_not_allowed, and stores nothing', async (_label, url, reason) => {
      const before = await state();
      const response = await create({ ...VALID, url });

      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ code: 'webhook_url_not_allowed', reason });
      expect(response.text).not.toMatch(/127\.0\.0\.1|93\.184/);
      expect(await state()).toEqual(before);
    });

    it(`keeps at most ${MAX_WEBHOOK_ENDPOINTS} endpoints: 409 too_many_webhook_endpoints with the limit`, async () => {
      for (let n = 0; n < MAX_WEBHOOK_ENDPOINTS; n++) expect((await create()).status).toBe(201);
      const before = await state();

      const refused = await create();

      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ code: 'too_many_webhook_endpoints', limit: MAX_WEBHOOK_ENDPOINTS });
      expect(await state()).toEqual(before);
      // Another account has its own ten.
      expect((await client(await t.signUp()).post(PATH, VALID)).status).toBe(201);
    });

    it('acts once for a request sent again with its Idempotency-Key, answering the same secret', async () => {
      const send = () => mine().post(PATH).set('Idempotency-Key', 'create-hook-1').send(VALID);
      const first = await send();
      const again = await send();

      expect(again.status).toBe(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);
      expect(await t.prisma.webhookEndpoint.count({ where: { accountId: me.id } })).toBe(1);
    });
  });

  describe('reading', () => {
    it('lists the endpoints oldest first, in pages chained through next_cursor, never with a secret', async () => {
      const made: string[] = [];
      for (let n = 0; n < 5; n++) {
        const response = await create({ ...VALID, url: `https://example.com/${n}` });
        made.push(response.body.id);
        t.clock.advanceSeconds(1);
      }
      await client(await t.signUp()).post(PATH, VALID);

      const listed: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page = await mine().get(PATH, cursor ? { limit: 2, cursor } : { limit: 2 });
        expect(page.status).toBe(200);
        expect(page.text).not.toMatch(/whsec_/);
        listed.push(...page.body.endpoints.map((endpoint: { id: string }) => endpoint.id));
        cursor = page.body.next_cursor;
        pages += 1;
      } while (cursor);
      expect(listed).toEqual(made);
      expect(pages).toBe(3);
      expect((await mine().get(PATH)).body.endpoints).toHaveLength(5);
    });

    it('reads one endpoint as created, but for its secret', async () => {
      const created = (await create({ ...VALID, description: 'Staging' })).body;
      const read = await mine().get(`${PATH}/${created.id}`);

      expect(read.status).toBe(200);
      const { secret: _secret, ...shown } = created;
      expect(read.body).toEqual(shown);
      expect((await request(t.app).head(`${PATH}/${created.id}`).set('Authorization', me.auth)).text).toBeFalsy();
    });

    it('refuses a cursor it did not write, and a limit out of range', async () => {
      expect((await mine().get(PATH, { cursor: 'bm90LWEtY3Vyc29y' })).body.errors).toEqual([
        { field: 'cursor', message: expect.any(String) },
      ]);
      expect((await mine().get(PATH, { limit: 101 })).body.errors).toEqual([
        { field: 'limit', message: expect.any(String) },
      ]);
    });
  });

  describe('changes', () => {
    it('rolls the secret: a new one answered, the old one kept for 24 hours', async () => {
      const created = (await create()).body;
      const response = await mine().post(`${PATH}/${created.id}/roll-secret`);

      expect(response.status).toBe(200);
      expect(response.body).toEqual({ secret: expect.stringMatching(SECRET) });
      expect(response.body.secret).not.toBe(created.secret);
      const row = await stored(created.id);
      expect(row).toMatchObject({ secret: response.body.secret, previousSecret: created.secret });
      const overlap = (row?.previousSecretUntil?.getTime() ?? 0) - t.clock.now().getTime();
      expect(overlap).toBeGreaterThan(24 * HOUR - 60_000);
      expect(overlap).toBeLessThanOrEqual(24 * HOUR);
    });

    it('disables by its owner and enables again, clearing the reason and the days failing', async () => {
      const created = (await create()).body;
      const disabled = await mine().post(`${PATH}/${created.id}/disable`);
      expect(disabled.status).toBe(200);
      expect(disabled.body).toMatchObject({ id: created.id, status: 'disabled', disabled_reason: 'by_owner' });
      expect((await mine().get(`${PATH}/${created.id}`)).body).toEqual(disabled.body);

      // As a delivery would leave it after failing for days.
      await t.prisma.webhookEndpoint.updateMany({
        where: { accountId: me.id, id: created.id },
        data: { status: 'disabled', disabledReason: 'failing', failingSince: new Date(Date.now() - 120 * HOUR) },
      });
      expect((await mine().get(`${PATH}/${created.id}`)).body.disabled_reason).toBe('failing');

      const enabled = await mine().post(`${PATH}/${created.id}/enable`);
      expect(enabled.status).toBe(200);
      expect(enabled.body).toMatchObject({ status: 'enabled', disabled_reason: null });
      expect(await stored(created.id)).toMatchObject({ status: 'enabled', disabledReason: null, failingSince: null });
    });

    it('deletes an endpoint: 204 without a body, then unknown', async () => {
      const created = (await create()).body;
      const response = await mine().delete(`${PATH}/${created.id}`);

      expect(response.status).toBe(204);
      expect(response.text).toBe('');
      expect(response.headers['content-type']).toBeUndefined();
      expect(response.headers['content-length']).toBeUndefined();
      expect(await stored(created.id)).toBeNull();
      expect((await mine().get(`${PATH}/${created.id}`)).status).toBe(404);
      expect((await mine().delete(`${PATH}/${created.id}`)).body).toMatchObject({
        code: 'webhook_endpoint_not_found',
        endpoint_id: created.id,
      });
    });

    it('answers another method on an endpoint 405, naming the ones it takes', async () => {
      const response = await request(t.app).put(`${PATH}/whk_0`).set('Authorization', me.auth).send({});
      expect(response.status).toBe(405);
      expect(response.headers.allow).toBe('GET, DELETE, HEAD');
    });
  });

  describe("another account's endpoint", () => {
    it('answers every operation exactly as an unknown one, and changes nothing', async () => {
      const theirs = (await client(await t.signUp()).post(PATH, VALID)).body.id;
      const unknown = `whk_${'0'.repeat(32)}`;
      const before = await t.prisma.webhookEndpoint.findMany({ orderBy: { id: 'asc' } });
      const operations = [
        (id: string) => mine().get(`${PATH}/${id}`),
        (id: string) => mine().post(`${PATH}/${id}/roll-secret`),
        (id: string) => mine().post(`${PATH}/${id}/disable`),
        (id: string) => mine().post(`${PATH}/${id}/enable`),
        (id: string) => mine().delete(`${PATH}/${id}`),
      ];
      for (const operation of operations) {
        const [answer, none] = [await operation(theirs), await operation(unknown)];
        expect(answer.status).toBe(404);
        const comparable = (body: Record<string, unknown>, id: string) =>
          JSON.stringify({ ...body, request_id: null })
            .split(id)
            .join('<id>');
        expect(comparable(answer.body, theirs)).toBe(comparable(none.body, unknown));
        expect(answer.body).toMatchObject({ code: 'webhook_endpoint_not_found', endpoint_id: theirs });
      }
      expect(await t.prisma.webhookEndpoint.findMany({ orderBy: { id: 'asc' } })).toEqual(before);
    });
  });
});

describe('webhook endpoints with WEBHOOK_ALLOW_PRIVATE_URLS=on', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ webhookAllowPrivateUrls: true });
  });
  afterAll(() => t.close());

  it('takes http, and private addresses, for receivers on this machine', async () => {
    const me = await t.signUp();
    const response = await request(t.app)
      .post(PATH)
      .set('Authorization', me.auth)
      .send({ url: 'http://127.0.0.1:8080/hooks', event_types: ['event.recorded'] });
    expect(response.status).toBe(201);
    expect(response.body.url).toBe('http://127.0.0.1:8080/hooks');
    const other = await request(t.app)
      .post(PATH)
      .set('Authorization', me.auth)
      .send({ url: 'ftp://127.0.0.1/', event_types: ['event.recorded'] });
    expect(other.body.errors).toEqual([{ field: 'url', message: 'url must be an https or http URL' }]);
  });
});
