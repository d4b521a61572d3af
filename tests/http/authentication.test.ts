import request from 'supertest';
import { startTestApp, type TestApp } from '../support/http/test-app';

const protectedOperations: ReadonlyArray<[method: 'get' | 'post', path: string]> = [
  ['post', '/v1/anchors'],
  ['post', '/v1/timelines'],
  ['post', '/v1/travels'],
  ['post', '/v1/items'],
  ['post', '/v1/paradox-checks'],
  ['get', '/timelines'],
  ['get', '/timeline/primary'],
];

describe('API keys', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it.each(protectedOperations)(
    '%s %s without a key is 401 missing_api_key with WWW-Authenticate: Bearer',
    async (method, path) => {
      const response = await request(t.app)[method](path).send({});
      expect(response.status).toBe(401);
      expect(response.headers['www-authenticate']).toMatch(/^Bearer realm="time-navigation"$/);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.body).toMatchObject({ status: 401, code: 'missing_api_key', type: '/problems/missing_api_key' });
    },
  );

  it.each([
    ['a malformed header', 'Token abc'],
    ['a malformed key', 'Bearer not-a-key'],
    ['an unknown key', `Bearer tns_${'A'.repeat(43)}`],
    ['two credentials', 'Bearer a b'],
  ])('refuses %s with 401 invalid_api_key', async (_case, header) => {
    const response = await request(t.app).get('/timelines').set('Authorization', header);
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer realm="time-navigation", error="invalid_token"');
    expect(response.body.code).toBe('invalid_api_key');
  });

  it('authenticates before it validates, so strangers learn nothing about the input', async () => {
    const response = await request(t.app)
      .post('/v1/timelines')
      .set('Content-Type', 'application/json')
      .send('{not json');
    expect(response.status).toBe(401);
  });

  it('refuses a revoked key at once', async () => {
    const me = await t.signUp();
    expect((await request(t.app).get('/timelines').set('Authorization', me.auth)).status).toBe(200);
    await t.prisma.apiKey.updateMany({ where: { accountId: me.id }, data: { revokedAt: new Date() } });
    const response = await request(t.app).get('/timelines').set('Authorization', me.auth);
    expect(response.status).toBe(401);
    expect(response.body.code).toBe('invalid_api_key');
  });

  it('accepts the scheme name in any case, as RFC 7235 requires', async () => {
    const me = await t.signUp();
    const response = await request(t.app).get('/timelines').set('Authorization', `bearer ${me.apiKey}`);
    expect(response.status).toBe(200);
  });
});

describe('failed API keys from one client address', () => {
  let t: TestApp;
  beforeAll(async () => {
    // Behind a proxy on the loopback, as deployed: X-Forwarded-For names the client.
    t = await startTestApp({ apiKeyFailuresPerMinute: 3, trustProxy: 'loopback' });
  });
  afterAll(() => t.close());

  const wrongKey = (n: number) => `Bearer tns_${String(n).padStart(43, 'W')}`;
  const from = (address: string, auth: string) =>
    request(t.app).get('/timelines').set('X-Forwarded-For', address).set('Authorization', auth);

  it('are refused 429 past the limit, with Retry-After, while a key verified lately goes on', async () => {
    const me = await t.signUp();
    expect((await from('192.0.2.10', me.auth)).status).toBe(200);
    for (let n = 0; n < 3; n += 1) expect((await from('192.0.2.10', wrongKey(n))).status).toBe(401);

    const refused = await from('192.0.2.10', wrongKey(3));
    expect(refused.status).toBe(429);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(refused.body).toMatchObject({
      status: 429,
      code: 'too_many_failed_attempts',
      retry_after_seconds: Number(refused.headers['retry-after']),
    });
    expect((await from('192.0.2.10', me.auth)).status).toBe(200);
    // Another client is not held back.
    expect((await from('192.0.2.11', wrongKey(4))).status).toBe(401);
  });

  it("count an IPv6 client's whole /64 as one client", async () => {
    for (let n = 0; n < 3; n += 1) expect((await from(`2001:db8:7:7::${n + 1}`, wrongKey(n))).status).toBe(401);
    expect((await from('2001:db8:7:7:ffff::9', wrongKey(3))).status).toBe(429);
    expect((await from('2001:db8:7:8::1', wrongKey(4))).status).toBe(401);
  });
});
