import request from 'supertest';
import { ALL_TIME, asAccount, type AccountClient } from '../support/http/as-account';
import { OpenApiContract } from '../support/http/openapi-contract';
import { aWindowStart } from '../support/http/rate-limit-windows';
import { startTestApp, type TestApp } from '../support/http/test-app';

/**
 * Real requests to every operation, a success and an error each, and every answer checked against
 * the OpenAPI document the service serves: status, media type, body schema and headers.
 */
describe('real responses conform to GET /openapi.json', () => {
  let t: TestApp;
  let me: AccountClient;
  let contract: OpenApiContract;
  const ids = { anchor: '', timeline: '', item: '', event: '', endpoint: '' };

  // Requests without a key are counted per address, as the service counts them; the probes' flood
  // below names its own address (X-Forwarded-For), so the rest keep theirs.
  const ANONYMOUS_PER_MINUTE = 50;

  beforeAll(async () => {
    t = await startTestApp({ trustProxy: true, rateLimit: { anonymousPerMinute: ANONYMOUS_PER_MINUTE } });
    me = asAccount(t, await t.signUp());
    contract = new OpenApiContract((await request(t.app).get('/openapi.json')).body);
  });
  afterAll(() => t.close());

  /** Sends, checks the answer against the document, and hands it back for the scenario to use. */
  async function expectDocumented(
    operationId: string,
    status: number,
    send: Promise<request.Response>,
  ): Promise<request.Response> {
    const response = await send;
    expect({ operationId, status: response.status }).toEqual({ operationId, status });
    contract.expectConforms(operationId, response);
    return response;
  }
  const anonymous = () => request(t.app);

  it('accounts', async () => {
    const email = `conformance-${Date.now()}@example.com`;
    await expectDocumented(
      'createAccount',
      201,
      anonymous().post('/v1/accounts').send({ email, password: 'correct horse battery' }),
    );
    await expectDocumented(
      'createAccount',
      409,
      anonymous().post('/v1/accounts').send({ email, password: 'correct horse battery' }),
    );
  });

  it('anchors, timelines and items (Family B reads and writes)', async () => {
    ids.anchor = (await expectDocumented('createAnchor', 201, me.post('/v1/anchors', { description: 'Home' }))).body.id;
    await expectDocumented('createAnchor', 400, me.post('/v1/anchors', {}));
    await expectDocumented(
      'setAnchor',
      200,
      me.post('/v1/set-anchor', { description: 'Home again', timestamp: '2020-01-01T00:00:00Z' }),
    );
    await expectDocumented('setAnchor', 401, anonymous().post('/v1/set-anchor').send({ description: 'Home' }));

    const timeline = await expectDocumented(
      'createTimeline',
      201,
      me.post('/v1/timelines', { name: 'Apollo 11', destination_time: '1969-07-20T20:17:40Z' }),
    );
    ids.timeline = timeline.body.id;
    await expectDocumented(
      'createTimeline',
      400,
      me.post('/v1/timelines', { name: 'Apollo 11', destination_time: '1969-07-20T20:17:40Z', window: '12 hours' }),
    );
    await expectDocumented('listTimelines', 200, me.get('/timelines', { limit: 1 }));
    await expectDocumented('listTimelines', 400, me.get('/timelines', { cursor: 'not-a-cursor' }));
    await expectDocumented('getTimeline', 200, me.get(`/timeline/${ids.timeline}`));
    await expectDocumented('getTimeline', 404, me.get('/timeline/tml_00000000000000000000000000000000'));

    await expectDocumented('registerItem', 201, me.post('/v1/items', { description: 'Pocket watch' }));
    await expectDocumented(
      'registerItem',
      415,
      me.post('/v1/items').set('Content-Type', 'text/plain').send('description=watch'),
    );
  });

  it('the clock (Family A)', async () => {
    await expectDocumented('pauseTime', 200, me.post('/v1/pause-time'));
    await expectDocumented('pauseTime', 409, me.post('/v1/pause-time'));
    await expectDocumented('resumeTime', 200, me.post('/v1/resume-time'));
    await expectDocumented('resumeTime', 409, me.post('/v1/resume-time'));
    await expectDocumented('fastForward', 200, me.post('/v1/fast-forward', { duration: '2h' }));
    await expectDocumented('fastForward', 400, me.post('/v1/fast-forward', { duration: '2 hours' }));
    await expectDocumented('rewind', 200, me.post('/v1/rewind', { duration: '90m' }));
    await expectDocumented('rewind', 400, me.post('/v1/rewind', { duration: '9999999d' }));
  });

  it('moving to moments, events and their manipulation (Families A and C)', async () => {
    await expectDocumented(
      'travelToMoment',
      200,
      me.post('/v1/travel', { destination_time: '1969-07-20T20:17:40Z', location: 'Sea of Tranquility' }),
    );
    await expectDocumented(
      'travelToMoment',
      400,
      me.post('/v1/travel', { destination_time: 'yesterday', location: 'Sea of Tranquility' }),
    );
    await expectDocumented(
      'scenarioTravel',
      200,
      me.post('/api/v1/travel', { destination_time: '1969-07-21T17:54:00Z', location: 'Sea of Tranquility' }),
    );
    await expectDocumented(
      'scenarioTravel',
      401,
      anonymous().post('/api/v1/travel').set('Authorization', 'Bearer nope').send({}),
    );

    const item = await expectDocumented(
      'retrieveItem',
      200,
      me.get('/v1/retrieve-item', {
        item_description: 'Moon rock',
        location: 'Sea of Tranquility',
        time: '1969-07-20T20:30:00Z',
      }),
    );
    ids.item = item.body.item_id;
    await expectDocumented('retrieveItem', 400, me.get('/v1/retrieve-item', { item_description: 'Moon rock' }));

    const monitored = await expectDocumented(
      'monitorEvents',
      200,
      me.get('/v1/monitor-events', { location: 'Sea of Tranquility', time_range: ALL_TIME }),
    );
    expect(monitored.body.events.length).toBeGreaterThan(0);
    await expectDocumented(
      'monitorEvents',
      404,
      me.get('/v1/monitor-events', { location: 'x', time_range: ALL_TIME, timeline_id: 'tml_unknown' }),
    );
    const scanned = await expectDocumented(
      'scanEvents',
      200,
      me.post('/api/v1/scan-events', { location: 'Sea of Tranquility', time_range: ALL_TIME, limit: 1 }),
    );
    expect(scanned.body.next_cursor).toEqual(expect.any(String));
    ids.event = scanned.body.events[0].event_id;
    await expectDocumented(
      'scanEvents',
      400,
      me.post('/api/v1/scan-events', { location: 'x', time_range: '2020-01-02T00:00:00Z/2020-01-01T00:00:00Z' }),
    );

    await expectDocumented(
      'manipulateEvent',
      200,
      me.post('/api/v1/manipulate-event', {
        event_id: ids.event,
        action: 'Delay the landing',
        time: '1969-07-20T21:17:40Z',
      }),
    );
    await expectDocumented(
      'manipulateEvent',
      404,
      me.post('/api/v1/manipulate-event', { event_id: 'evt_unknown', action: 'x', time: '1969-07-20T21:17:40Z' }),
    );
  });

  it('paradox checks (Families A, B and C)', async () => {
    await expectDocumented('checkParadox', 200, me.get('/v1/check-paradox', { timeline_id: 'primary' }));
    await expectDocumented('checkParadox', 404, me.get('/v1/check-paradox', { timeline_id: 'tml_unknown' }));
    const proposed = [
      { event: 'Traveller arrives at Sea of Tranquility', time: '1970-01-01T00:00:00Z' },
      { item_id: ids.item },
    ];
    const verdict = await expectDocumented(
      'checkParadoxes',
      200,
      me.post('/v1/paradox-checks', { timeline_id: 'primary', proposed_changes: proposed }),
    );
    expect(verdict.body.reasons.length).toBeGreaterThan(0);
    await expectDocumented(
      'checkParadoxes',
      422,
      me.post('/v1/paradox-checks', { timeline_id: 'primary', proposed_changes: [{ item_id: 'itm_unknown' }] }),
    );
    await expectDocumented(
      'monitorParadox',
      200,
      me.get('/api/v1/monitor-paradox', { timeline_id: 'primary', time_range: ALL_TIME }),
    );
    await expectDocumented(
      'monitorParadox',
      404,
      me.get('/api/v1/monitor-paradox', { timeline_id: 'tml_unknown', time_range: ALL_TIME }),
    );
    const around = await expectDocumented(
      'checkTimeline',
      200,
      me.get('/api/v1/check-timeline', { timeline_id: 'primary', significant_event: ids.event }),
    );
    expect(around.body.reasons.map((reason: { code: string }) => reason.code)).toContain('event_displaced');
    await expectDocumented(
      'checkTimeline',
      422,
      me.get('/api/v1/check-timeline', { timeline_id: 'primary', significant_event: 'Nothing of the sort' }),
    );
  });

  it('travels to a timeline and home, carrying an item (Families A and B)', async () => {
    await expectDocumented('createTravel', 201, me.post('/v1/travels', { destination: ids.timeline }));
    await expectDocumented('createTravel', 404, me.post('/v1/travels', { destination: 'tml_unknown' }));
    const found = await expectDocumented(
      'registerItem',
      201,
      me.post('/v1/items', { description: 'Flag', location: 'Sea of Tranquility' }),
    );
    await expectDocumented(
      'createTravel',
      201,
      me.post('/v1/travels', { destination: ids.anchor, items_transported: [found.body.id] }),
    );
    await expectDocumented('returnToAnchor', 200, me.post('/v1/return', { anchor_id: ids.anchor }));
    await expectDocumented('returnToAnchor', 404, me.post('/v1/return', { anchor_id: 'anc_unknown' }));
  });

  it('webhook endpoints: made, read, changed and deleted', async () => {
    const endpoints = '/v1/webhook-endpoints';
    const hook = { url: 'https://example.com/webhooks', event_types: ['event.recorded'], description: 'Staging' };
    const created = await expectDocumented('createWebhookEndpoint', 201, me.post(endpoints, hook));
    ids.endpoint = created.body.id;
    await expectDocumented('createWebhookEndpoint', 400, me.post(endpoints, { ...hook, url: 'https://10.0.0.1/' }));
    await expectDocumented('listWebhookEndpoints', 200, me.get(endpoints, { limit: 1 }));
    await expectDocumented('listWebhookEndpoints', 400, me.get(endpoints, { limit: 0 }));
    const one = `${endpoints}/${ids.endpoint}`;
    const none = `${endpoints}/whk_00000000000000000000000000000000`;
    await expectDocumented('getWebhookEndpoint', 200, me.get(one));
    await expectDocumented('getWebhookEndpoint', 404, me.get(none));
    for (const [operationId, action] of [
      ['rollWebhookSecret', 'roll-secret'],
      ['disableWebhookEndpoint', 'disable'],
      ['enableWebhookEndpoint', 'enable'],
    ] as const) {
      await expectDocumented(operationId, 200, me.post(`${one}/${action}`));
      await expectDocumented(operationId, 404, me.post(`${none}/${action}`));
    }
    // An attempt as a delivery records it: answered 500, its retry scheduled.
    const messageId = `msg_${'1'.repeat(32)}`;
    const attemptedAt = new Date();
    await t.prisma.webhookMessage.create({
      data: {
        accountId: me.account.id,
        id: messageId,
        endpointId: ids.endpoint,
        eventType: 'event.recorded',
        subject: {},
        createdAt: attemptedAt,
        state: 'pending',
        attempts: 1,
        tries: {
          create: {
            attempt: 1,
            endpointId: ids.endpoint,
            attemptedAt,
            status: 500,
            durationMs: 12,
            answer: 'Internal Server Error',
            nextAttemptAt: new Date(attemptedAt.getTime() + 5_000),
          },
        },
      },
    });
    await expectDocumented('listWebhookDeliveries', 200, me.get(`${one}/deliveries`, { limit: 1 }));
    await expectDocumented('listWebhookDeliveries', 400, me.get(`${one}/deliveries`, { limit: 0 }));
    await expectDocumented('listWebhookDeliveries', 404, me.get(`${none}/deliveries`));
    const tested = await expectDocumented('sendTestWebhook', 202, me.post(`${one}/test`));
    await expectDocumented('sendTestWebhook', 404, me.post(`${none}/test`));
    const resend = (id: string) => me.post(`${one}/deliveries/${id}/resend`);
    await expectDocumented('resendWebhookMessage', 202, resend(tested.body.message_id));
    await expectDocumented('resendWebhookMessage', 404, resend(`msg_${'0'.repeat(32)}`));
    const doomed = (await me.post(endpoints, hook)).body.id;
    const remove = (path: string) => request(t.app).delete(path).set('Authorization', me.account.auth);
    await expectDocumented('deleteWebhookEndpoint', 204, remove(`${endpoints}/${doomed}`));
    await expectDocumented('deleteWebhookEndpoint', 404, remove(`${endpoints}/${doomed}`));
  });

  it('API keys: made, listed, changed and revoked; a restricted key refused what it lacks', async () => {
    const keys = '/v1/api-keys';
    const created = await expectDocumented('createApiKey', 201, me.post(keys, { permissions: { anchors: 'read' } }));
    await expectDocumented('createApiKey', 400, me.post(keys, { permissions: { anchors: 'all' } }));
    await expectDocumented('listApiKeys', 200, me.get(keys, { limit: 1 }));
    await expectDocumented('listApiKeys', 400, me.get(keys, { limit: 0 }));
    const patch = (id: string, body: object) =>
      request(t.app).patch(`${keys}/${id}`).set('Authorization', me.account.auth).send(body);
    const none = `key_${'0'.repeat(32)}`;
    await expectDocumented('updateApiKey', 200, patch(created.body.id, { name: 'reader' }));
    await expectDocumented('updateApiKey', 404, patch(none, { name: 'nobody' }));
    const restricted = request(t.app).post('/v1/anchors').set('Authorization', `Bearer ${created.body.api_key}`);
    await expectDocumented('createAnchor', 403, restricted.send({ description: 'Refused' }));
    const remove = (id: string) => request(t.app).delete(`${keys}/${id}`).set('Authorization', me.account.auth);
    await expectDocumented('revokeApiKey', 204, remove(created.body.id));
    await expectDocumented('revokeApiKey', 404, remove(created.body.id));
  });

  it('answers kept under an Idempotency-Key, a success and a refusal, replayed as documented', async () => {
    const keyed = (key: string, body: object) => me.post('/v1/anchors', body).set('Idempotency-Key', key);
    await expectDocumented('createAnchor', 201, keyed('conformance-anchor', { description: 'Kept' }));
    const replayed = await expectDocumented('createAnchor', 201, keyed('conformance-anchor', { description: 'Kept' }));
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    const refusal = () =>
      me.post('/v1/travels', { destination: 'tml_unknown' }).set('Idempotency-Key', 'conformance-refusal');
    await expectDocumented('createTravel', 404, refusal());
    expect((await expectDocumented('createTravel', 404, refusal())).headers['idempotent-replayed']).toBe('true');
  });

  it('the probes, ready and not ready', async () => {
    await expectDocumented('health', 200, anonymous().get('/healthz'));
    await expectDocumented('readiness', 200, anonymous().get('/readyz'));
    // Past its address's allowance of requests without a key, a probe too is refused.
    t.clock.freezeAt(aWindowStart(1));
    const probe = () => anonymous().get('/healthz').set('X-Forwarded-For', '198.51.100.99');
    for (let i = 0; i < ANONYMOUS_PER_MINUTE; i += 1) expect((await probe()).status).toBe(200);
    await expectDocumented('health', 429, probe());
    // A migration this build ships, marked not applied: the process must not take traffic.
    const [last] = await t.prisma.$queryRaw<
      Array<{ id: string }>
    >`SELECT id FROM _prisma_migrations ORDER BY migration_name DESC LIMIT 1`;
    await t.prisma.$executeRaw`UPDATE _prisma_migrations SET rolled_back_at = now() WHERE id = ${last?.id}`;
    try {
      await expectDocumented('readiness', 503, anonymous().get('/readyz'));
    } finally {
      await t.prisma.$executeRaw`UPDATE _prisma_migrations SET rolled_back_at = NULL WHERE id = ${last?.id}`;
    }
  });

  it("HEAD of each GET that changes nothing: the GET's answers, without their bodies", async () => {
    const heads = contract.operations().filter(({ method }) => method === 'head');
    expect(heads.map(({ operation }) => operation.operationId)).toContain('listTimelinesHead');
    for (const { path, operation } of heads) {
      const parameters = operation.parameters ?? [];
      // The documented examples, but for the timeline and the webhook endpoint: the account's own.
      const own: Record<string, string> = { timeline_id: 'primary', endpoint_id: ids.endpoint };
      const valueOf = (name: string) => own[name] ?? String(parameters.find((p) => p.name === name)?.example);
      const url = path.replace(/\{([^}]+)\}/g, (_match, name: string) => encodeURIComponent(valueOf(name)));
      const query = Object.fromEntries(
        parameters.filter((p) => p.in === 'query' && p.example !== undefined).map((p) => [p.name, valueOf(p.name)]),
      );
      const id = String(operation.operationId);
      const head = () => request(t.app).head(url).query(query);
      // The GET's headers: its media type and length, without its body.
      const success = await expectDocumented(id, 200, head().set('Authorization', me.account.auth));
      expect({ id, type: success.headers['content-type'] }).toEqual({ id, type: 'application/json; charset=utf-8' });
      expect(Number(success.headers['content-length'])).toBeGreaterThan(0);
      await expectDocumented(id, 401, head());
    }
  });

  it('checked a success and an error of every operation in the document (a success if it documents no error)', () => {
    const operations = contract.operations().map(({ operation }) => operation.operationId);
    const unchecked = operations.filter((id) => contract.checked.get(id)?.size !== contract.kindsOf(id).length);
    expect(unchecked).toEqual([]);
  });
});
