// A restricted key's refusals as an integrator meets them: the 403 and its challenge, checked
// before the body is read and before an Idempotency-Key keeps anything, logged and counted by the
// permission, and a change of permissions seen on the key's next request.
import { Registry } from 'prom-client';
import request from 'supertest';
import { permissionsOf, type Permissions } from '../../src/core/domain/api-key-permissions';
import { CreateApiKey } from '../../src/core/use-cases/api-keys/create-api-key';
import { UpdateApiKey } from '../../src/core/use-cases/api-keys/update-api-key';
import { HttpMetrics } from '../../src/interfaces/http/middleware/http-metrics';
import { serviceLog } from '../support/service-log';
import { startTestApp, type TestAccount, type TestApp } from '../support/http/test-app';

describe('restricted API keys over HTTP', () => {
  const log = serviceLog();
  const registry = new Registry();
  let t: TestApp;
  let account: TestAccount;

  beforeAll(async () => {
    t = await startTestApp({ logger: log.logger, metrics: new HttpMetrics(registry) });
    account = await t.signUp();
  });
  afterAll(() => t.close());

  async function aRestrictedKey(owner: TestAccount, permissions: Permissions) {
    const issued = await t.container.get(CreateApiKey).execute({ accountId: owner.id, name: null, permissions });
    return { secret: issued.secret, id: issued.key.id };
  }
  const anchor = (key: string, idempotencyKey?: string) => {
    const sent = request(t.app).post('/v1/anchors').set('Authorization', `Bearer ${key}`);
    return (idempotencyKey ? sent.set('Idempotency-Key', idempotencyKey) : sent).send({ description: 'Home' });
  };
  const refusals = async (permission: string) =>
    (await registry.getSingleMetric('tns_permission_refusals_total')?.get())?.values.find(
      (value) => value.labels.permission === permission,
    )?.value ?? 0;

  it('refuses a key lacking the permission: 403 naming it and the key, a challenge, a log line, a count', async () => {
    const key = await aRestrictedKey(account, permissionsOf({ anchors: 'read' }));
    const counted = await refusals('anchors:write');

    const refused = await anchor(key.secret).set('X-Request-Id', 'refused-anchor');

    expect(refused.status).toBe(403);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(refused.headers['www-authenticate']).toBe(
      'Bearer realm="time-navigation", error="insufficient_scope", scope="anchors:write"',
    );
    expect(refused.body).toMatchObject({
      type: '/problems/insufficient_permissions',
      title: 'Forbidden',
      status: 403,
      code: 'insufficient_permissions',
      required_permission: 'anchors:write',
      key_id: key.id,
    });
    expect(await refusals('anchors:write')).toBe(counted + 1);
    const line = log.lines.find((logged) => logged.request_id === 'refused-anchor');
    expect(line).toMatchObject({
      account_id: account.id,
      key_id: key.id,
      permission: 'anchors:write',
      code: 'insufficient_permissions',
      res: { status: 403 },
    });
    expect(await t.prisma.anchor.count({ where: { accountId: account.id } })).toBe(0);
  });

  it('refuses before the body is read: a malformed body from a key without the permission is a 403', async () => {
    const key = await aRestrictedKey(account, permissionsOf({}));
    const refused = await request(t.app)
      .post('/v1/anchors')
      .set('Authorization', `Bearer ${key.secret}`)
      .set('Content-Type', 'application/json')
      .send('{"description": ');
    expect([refused.status, refused.body.code]).toEqual([403, 'insufficient_permissions']);
  });

  it('keeps no refusal under an Idempotency-Key: the same key from a permitted key acts once', async () => {
    const reader = await aRestrictedKey(account, permissionsOf({ anchors: 'read' }));
    const writer = await aRestrictedKey(account, permissionsOf({ anchors: 'write' }));
    const before = await t.prisma.anchor.count({ where: { accountId: account.id } });

    expect((await anchor(reader.secret, 'anchor-once')).status).toBe(403);
    const first = await anchor(writer.secret, 'anchor-once');
    const again = await anchor(writer.secret, 'anchor-once');

    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    expect(await t.prisma.anchor.count({ where: { accountId: account.id } })).toBe(before + 1);
  });

  it('still answers an unknown or malformed key 401, whether it looks restricted or not', async () => {
    for (const key of [`tnr_${'A'.repeat(43)}`, `tns_${'A'.repeat(43)}`, 'tnr_short']) {
      const refused = await anchor(key);
      expect([refused.status, refused.body.code]).toEqual([401, 'invalid_api_key']);
      expect(refused.headers['www-authenticate']).toBe('Bearer realm="time-navigation", error="invalid_token"');
    }
  });

  it("answers another account's timeline 404 once the permission holds, 403 before", async () => {
    const created = await request(t.app)
      .post('/v1/timelines')
      .set('Authorization', account.auth)
      .send({ name: 'Mine', destination_time: '1969-07-20T20:17:40Z', window: '12 minutes' });
    expect(created.status).toBe(201);
    const other = await t.signUp();
    const reader = await aRestrictedKey(other, permissionsOf({ timelines: 'read' }));
    const blind = await aRestrictedKey(other, permissionsOf({ anchors: 'write' }));
    const read = (key: string) =>
      request(t.app).get(`/timeline/${created.body.id}`).set('Authorization', `Bearer ${key}`);

    expect([(await read(reader.secret)).status, (await read(reader.secret)).body.code]).toEqual([
      404,
      'timeline_not_found',
    ]);
    expect((await read(blind.secret)).body).toMatchObject({ code: 'insufficient_permissions', key_id: blind.id });
  });

  it('refuses an event stream to a key without events:read, before it opens', async () => {
    const key = await aRestrictedKey(account, permissionsOf({ events: 'none', travels: 'write' }));
    const refused = await request(t.app)
      .get('/v1/monitor-events')
      .query({ location: 'Here', time_range: '1600-01-01T00:00:00Z/1600-01-02T00:00:00Z' })
      .set('Accept', 'text/event-stream')
      .set('Authorization', `Bearer ${key.secret}`);
    expect([refused.status, refused.body.required_permission]).toEqual([403, 'events:read']);
  });

  it("answers a changed key's next request by its new permissions, though the key is remembered", async () => {
    const key = await aRestrictedKey(account, permissionsOf({ anchors: 'write' }));
    expect((await anchor(key.secret)).status).toBe(201);
    const hits = t.keyCaching.cache.stats().hits;
    expect((await anchor(key.secret)).status).toBe(201);
    expect(t.keyCaching.cache.stats().hits).toBe(hits + 1);

    await t.container
      .get(UpdateApiKey)
      .execute({ accountId: account.id, keyId: key.id, permissions: permissionsOf({ anchors: 'read' }) });
    expect((await anchor(key.secret)).body).toMatchObject({ code: 'insufficient_permissions', key_id: key.id });

    await t.container
      .get(UpdateApiKey)
      .execute({ accountId: account.id, keyId: key.id, permissions: permissionsOf({ anchors: 'write' }) });
    expect((await anchor(key.secret)).status).toBe(201);
  });
});
