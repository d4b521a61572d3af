// /v1/api-keys: the account's keys managed by API, full keys only, by the use cases the dashboard's
// key forms run.
import request from 'supertest';
import { permissionsOf } from '../../src/core/domain/api-key-permissions';
import { startTestApp, type TestAccount, type TestApp } from '../support/http/test-app';

describe('/v1/api-keys', () => {
  let t: TestApp;
  let account: TestAccount;

  beforeAll(async () => {
    t = await startTestApp();
    account = await t.signUp();
  });
  afterAll(() => t.close());

  const create = (body: object, auth = account.auth) =>
    request(t.app).post('/v1/api-keys').set('Authorization', auth).send(body);
  const list = (query: Record<string, string> = {}, auth = account.auth) =>
    request(t.app).get('/v1/api-keys').query(query).set('Authorization', auth);
  const update = (keyId: string, body: object, auth = account.auth) =>
    request(t.app).patch(`/v1/api-keys/${keyId}`).set('Authorization', auth).send(body);
  const revoke = (keyId: string, auth = account.auth) =>
    request(t.app).delete(`/v1/api-keys/${keyId}`).set('Authorization', auth);
  const anchorWith = (key: string) =>
    request(t.app).post('/v1/anchors').set('Authorization', `Bearer ${key}`).send({ description: 'Home' });
  const scanWith = (key: string) =>
    request(t.app)
      .post('/api/v1/scan-events')
      .set('Authorization', `Bearer ${key}`)
      .send({ location: 'Here', time_range: '1600-01-01T00:00:00Z/1600-01-02T00:00:00Z' });
  const keysOf = (owner: TestAccount) => t.prisma.apiKey.count({ where: { accountId: owner.id } });

  it('creates a restricted key, shown once: tnr_, each resource at its level or none, doing only that', async () => {
    const created = await create({ name: 'Status widget', permissions: { anchors: 'write', events: 'read' } });

    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^key_[0-9a-f]{32}$/),
      name: 'Status widget',
      api_key: expect.stringMatching(/^tnr_[A-Za-z0-9_-]{43}$/),
      permissions: permissionsOf({ anchors: 'write', events: 'read' }),
      created_at: expect.stringMatching(/Z$/),
    });
    const key: string = created.body.api_key;
    expect((await anchorWith(key)).status).toBe(201);
    expect((await scanWith(key)).status).toBe(200);
    expect((await request(t.app).post('/v1/pause-time').set('Authorization', `Bearer ${key}`)).body).toMatchObject({
      code: 'insufficient_permissions',
      required_permission: 'clock:write',
      key_id: created.body.id,
    });
  });

  it('creates a full key when no permissions are given, as the dashboard does', async () => {
    const created = await create({});
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: null, permissions: null });
    expect(created.body.api_key).toMatch(/^tns_/);
    expect((await list({}, `Bearer ${created.body.api_key}`)).status).toBe(200);
  });

  it('lists the usable keys a page at a time, oldest first, never a whole key', async () => {
    const owner = await t.signUp();
    const auth = owner.auth;
    const made = [];
    for (const name of ['one', 'two', 'three']) made.push((await create({ name, permissions: {} }, auth)).body);
    await revoke(made[1].id, auth);

    const first = await list({ limit: '2' }, auth);
    const second = await list({ limit: '2', cursor: first.body.next_cursor }, auth);

    expect(first.status).toBe(200);
    expect([...first.body.api_keys, ...second.body.api_keys].map((key: { name: string }) => key.name)).toEqual([
      null,
      'one',
      'three',
    ]);
    expect(second.body.next_cursor).toBeNull();
    expect(first.body.api_keys[0]).toEqual({
      id: expect.stringMatching(/^key_/),
      name: null,
      prefix: owner.apiKey.slice(0, 12),
      permissions: null,
      created_at: expect.any(String),
      last_used_at: expect.any(String),
      expires_at: null,
    });
    const text = first.text + second.text;
    for (const secret of [owner.apiKey, ...made.map((key) => key.api_key)]) expect(text).not.toContain(secret);
  });

  it("changes a restricted key's permissions and name: its next request is answered by them", async () => {
    const created = await create({ name: 'widget', permissions: { anchors: 'write' } });
    const key: string = created.body.api_key;
    expect((await anchorWith(key)).status).toBe(201);

    const changed = await update(created.body.id, { name: 'reader', permissions: { events: 'read' } });

    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ id: created.body.id, name: 'reader', permissions: { anchors: 'none' } });
    expect((await anchorWith(key)).body).toMatchObject({ code: 'insufficient_permissions' });
    expect((await scanWith(key)).status).toBe(200);
    expect((await update(created.body.id, { name: 'renamed only' })).body).toMatchObject({
      name: 'renamed only',
      permissions: { events: 'read' },
    });
  });

  it('gives no permissions to a full key (409), no key of another account (404), nor nothing (400)', async () => {
    const fullKeyId = (await t.prisma.apiKey.findFirstOrThrow({ where: { accountId: account.id } })).id;
    const other = await t.signUp();
    const theirs = (await create({ permissions: { events: 'read' } }, other.auth)).body.id;

    const narrowed = await update(fullKeyId, { permissions: { events: 'read' } });
    expect([narrowed.status, narrowed.body.code, narrowed.body.key_id]).toEqual([
      409,
      'api_key_not_restricted',
      fullKeyId,
    ]);
    const crossed = await update(theirs, { permissions: { events: 'write' } });
    expect([crossed.status, crossed.body.code]).toEqual([404, 'api_key_not_found']);
    const empty = await update(theirs, {}, other.auth);
    expect([empty.status, empty.body.errors]).toEqual([
      400,
      [{ field: '(body)', message: 'give name, permissions or both' }],
    ]);
    expect(
      (
        await t.prisma.apiKey.findMany({ where: { id: { in: [fullKeyId, theirs] } }, orderBy: { createdAt: 'asc' } })
      ).map((key) => key.permissions),
    ).toEqual([null, expect.objectContaining({ events: 'read' })]);
  });

  it("revokes a key: its next request is refused; again, or another account's key, is 404", async () => {
    const created = await create({ permissions: { anchors: 'write' } });
    const other = await t.signUp();

    expect((await revoke(created.body.id, other.auth)).status).toBe(404);
    expect((await anchorWith(created.body.api_key)).status).toBe(201);
    const revoked = await revoke(created.body.id);
    expect([revoked.status, revoked.text]).toEqual([204, '']);
    expect((await anchorWith(created.body.api_key)).body.code).toBe('invalid_api_key');
    expect((await revoke(created.body.id)).body).toMatchObject({ code: 'api_key_not_found', key_id: created.body.id });
  });

  it('refuses bad input naming what is wrong, creating nothing', async () => {
    const owner = await t.signUp();
    const before = await keysOf(owner);
    const cases: Array<[object, string, RegExp]> = [
      [{ permissions: { anchor: 'write' } }, 'permissions.anchor', /is not a known field/],
      [{ permissions: { anchors: 'admin' } }, 'permissions.anchors', /none, read, write/],
      [{ permissions: ['anchors'] }, 'permissions', /object/],
      [{ permissions: null }, 'permissions', /object/],
      [{ name: 'n'.repeat(101) }, 'name', /100/],
      [{ name: '   ' }, 'name', /white space/],
      [{ scope: 'all' }, 'scope', /is not a known field/],
    ];
    for (const [body, field, message] of cases) {
      const refused = await create(body, owner.auth);
      expect([refused.status, refused.body.code]).toEqual([400, 'validation_failed']);
      expect(refused.body.errors).toEqual([{ field, message: expect.stringMatching(message) }]);
    }
    const keyed = await request(t.app)
      .post('/v1/api-keys')
      .set('Authorization', owner.auth)
      .set('Idempotency-Key', 'once')
      .send({ name: 'kept?' });
    expect([keyed.status, keyed.body.errors?.[0]?.field]).toEqual([400, 'Idempotency-Key']);
    expect(await keysOf(owner)).toBe(before);
  });

  it('refuses a 26th key of the account with 409 naming the limit, creating nothing', async () => {
    const owner = await t.signUp();
    for (let n = 1; n < 25; n++)
      expect((await create({ permissions: { events: 'read' } }, owner.auth)).status).toBe(201);
    const refused = await create({ name: 'one too many', permissions: { events: 'read' } }, owner.auth);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'too_many_api_keys', limit: 25 });
    expect(await keysOf(owner)).toBe(25);
  });
});
