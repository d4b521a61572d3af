import request from 'supertest';
import { createMetricsRegistry } from '../../src/infrastructure/metrics/metrics-registry';
import { HttpMetrics } from '../../src/interfaces/http/middleware/http-metrics';
import { aWindowStart, expectRateLimited, expectRefusalOf } from '../support/http/rate-limit-windows';
import { startTestApp, type TestAccount, type TestApp } from '../support/http/test-app';
import { samplesOf } from '../support/metrics/exposition';
import { serviceLog, type ServiceLog } from '../support/service-log';

// The per-address limits of requests that carry no API key, and the network bound of the account
// endpoints' (docs/decisions.md, "Rate limits"). Clients are named by X-Forwarded-For, as behind a
// proxy with TRUST_PROXY.

const PASSWORD = 'correct horse battery';
let emails = 0;
const uniqueEmail = () => `limited-${process.pid}-${Date.now()}-${++emails}@example.com`;

describe('requests without an API key, per client address (RATE_LIMIT_ANONYMOUS_PER_MINUTE)', () => {
  const QUOTA = 10;
  const FAILED_KEYS = 2;
  const unknownKey = `Bearer tns_${'A'.repeat(43)}`;
  let t: TestApp;
  let log: ServiceLog;
  let registry: ReturnType<typeof createMetricsRegistry>;
  let account: TestAccount;

  beforeAll(async () => {
    log = serviceLog();
    registry = createMetricsRegistry();
    t = await startTestApp({
      trustProxy: true,
      logger: log.logger,
      metrics: new HttpMetrics(registry),
      rateLimit: { anonymousPerMinute: QUOTA, accountsPerMinute: 5 },
      apiKeyFailuresPerMinute: FAILED_KEYS,
    });
    account = await t.signUp();
  });
  afterAll(() => t.close());

  const from = (address: string) => ({
    get: (path: string) => request(t.app).get(path).set('X-Forwarded-For', address),
    send: (method: 'post' | 'delete', path: string) => request(t.app)[method](path).set('X-Forwarded-For', address),
  });

  /** Each kind of request without a key an operation checks, with what it answers within the limit. */
  const keyless = (address: string): Array<[string, () => Promise<request.Response>, number]> => {
    const client = from(address);
    return [
      ['the health check', () => client.get('/healthz'), 200],
      ['the readiness check', () => client.get('/readyz'), 200],
      ['the OpenAPI document', () => client.get('/openapi.json'), 200],
      ['the docs console', () => client.get('/docs'), 303],
      ['the sign-in page', () => client.get('/login'), 200],
      ['the sign-up page', () => client.get('/signup'), 200],
      ['an operation without a key', () => client.get('/timelines'), 401],
      ['an operation with a malformed key', () => client.get('/timelines').set('Authorization', 'Bearer nope'), 401],
      ['a path that is no operation', () => client.get('/no-such-route'), 404],
      ['a method the path does not serve', () => client.send('delete', '/v1/anchors'), 405],
    ];
  };

  it('counts every kind of request without a key in one allowance, then answers 429 with Retry-After', async () => {
    t.clock.freezeAt(new Date(aWindowStart(1).getTime() + 20_000));
    const address = '203.0.113.10';
    const kinds = keyless(address);
    expect(kinds).toHaveLength(QUOTA);
    for (const [index, [kind, send, status]] of kinds.entries()) {
      const response = await send();
      expect([kind, response.status]).toEqual([kind, status]);
      expect(response.headers['ratelimit-policy']).toBe(`"anonymous";q=${QUOTA};w=60`);
      expect(response.headers['ratelimit']).toBe(`"anonymous";r=${QUOTA - 1 - index};t=40`);
    }
    for (const [kind, send] of kinds) {
      const refused = await send();
      expect([kind, refused.status]).toEqual([kind, 429]);
      expectRateLimited(refused, 'anonymous', '40');
      expect(refused.body.detail).toContain('without an API key from this address');
    }
    // The next minute has the whole allowance again.
    t.clock.advanceSeconds(40);
    expect((await from(address).get('/healthz')).headers['ratelimit']).toBe(`"anonymous";r=${QUOTA - 1};t=60`);
  });

  it("leaves another address its whole allowance, and counts an IPv6 client's /64 as one", async () => {
    t.clock.freezeAt(aWindowStart(2));
    for (let i = 0; i < QUOTA; i += 1) await from('2001:db8:9:9::1').get('/healthz');
    expectRateLimited(await from('2001:db8:9:9:ffff::2').get('/healthz'), 'anonymous', '60');
    const neighbours = [await from('2001:db8:9:a::1').get('/healthz'), await from('203.0.113.11').get('/healthz')];
    for (const response of neighbours) {
      expect(response.status).toBe(200);
      expect(response.headers['ratelimit']).toBe(`"anonymous";r=${QUOTA - 1};t=60`);
    }
  });

  it('does not count requests with a valid key, and leaves an unknown key to API_KEY_FAILURES_PER_MINUTE', async () => {
    t.clock.freezeAt(aWindowStart(3));
    const address = '203.0.113.12';
    const keyed = () => from(address).get('/timelines').set('Authorization', account.auth);
    for (let i = 0; i < QUOTA + 2; i += 1) {
      const response = await keyed();
      expect(response.status).toBe(200);
      expect(response.headers['ratelimit']).toBeUndefined();
    }
    expect((await from(address).get('/healthz')).headers['ratelimit']).toBe(`"anonymous";r=${QUOTA - 1};t=60`);
    for (let i = 1; i < QUOTA; i += 1) await from(address).get('/healthz');
    expect((await from(address).get('/healthz')).status).toBe(429);
    // The address's allowance is spent: its keyed requests go on, and an unknown key is refused as
    // unknown (counted as a failed key, not here).
    expect((await keyed()).status).toBe(200);
    const unknown = await from(address).get('/timelines').set('Authorization', unknownKey);
    expect([unknown.status, unknown.body.code, unknown.headers['ratelimit']]).toEqual([
      401,
      'invalid_api_key',
      undefined,
    ]);
  });

  it('leaves the account endpoints to their own limit, which counts them instead', async () => {
    t.clock.freezeAt(aWindowStart(4));
    const address = '203.0.113.13';
    for (let i = 0; i < QUOTA; i += 1) await from(address).get('/healthz');
    expect((await from(address).get('/signup')).status).toBe(429);
    const signUp = await from(address).send('post', '/v1/accounts').send({ email: uniqueEmail(), password: PASSWORD });
    expect(signUp.status).toBe(201);
    expect(signUp.headers['ratelimit-policy']).toBe('"accounts";q=5;w=60, "accounts-network";q=25;w=60');
    // And the other way round: the sign-ups did not spend another address's anonymous allowance.
    const other = '203.0.113.14';
    for (let i = 0; i < 3; i += 1)
      await from(other).send('post', '/v1/accounts').send({ email: uniqueEmail(), password: PASSWORD });
    expect((await from(other).get('/healthz')).headers['ratelimit']).toBe(`"anonymous";r=${QUOTA - 1};t=60`);
  });

  it('counts in memory: no counter of the anonymous allowance reaches the database', async () => {
    const keys = await t.prisma.rateLimitCounter.findMany({ select: { key: true } });
    expect(keys.length).toBeGreaterThan(0);
    for (const { key } of keys) expect(key).toMatch(/^(address|network):/);
  });

  it('names the limit that refused in the metrics and on the log line, never the address', async () => {
    t.clock.freezeAt(aWindowStart(5));
    for (let i = 0; i < QUOTA; i += 1) await from('203.0.113.15').get('/healthz');
    const before = samplesOf(await registry.metrics(), 'tns_rate_limit_refusals_total', { limit: 'anonymous' });
    const refused = await from('203.0.113.15').get('/healthz').set('X-Request-Id', 'anonymous-refused-1');
    expect(refused.status).toBe(429);
    const text = await registry.metrics();
    expect(samplesOf(text, 'tns_rate_limit_refusals_total', { limit: 'anonymous' })).toEqual([(before[0] ?? 0) + 1]);
    expect(text).not.toMatch(/tns_rate_limit_refusals_total\{[^}]*203\.0\.113/);
    expect(log.lines.find((line) => line.request_id === 'anonymous-refused-1')).toEqual(
      expect.objectContaining({ code: 'rate_limited', rate_limit: 'anonymous', res: { status: 429 } }),
    );

    // The failed keys' limit is named alike.
    const unknown = () => from('203.0.113.16').get('/timelines').set('Authorization', unknownKey);
    for (let i = 0; i < FAILED_KEYS; i += 1) expect((await unknown()).status).toBe(401);
    const locked = await unknown().set('X-Request-Id', 'failed-keys-refused-1');
    expect([locked.status, locked.body.code]).toEqual([429, 'too_many_failed_attempts']);
    expect(samplesOf(await registry.metrics(), 'tns_rate_limit_refusals_total', { limit: 'failed-keys' })).toEqual([1]);
    expect(log.lines.find((line) => line.request_id === 'failed-keys-refused-1')).toEqual(
      expect.objectContaining({ code: 'too_many_failed_attempts', rate_limit: 'failed-keys' }),
    );
  });
});

describe('the account endpoints per network (five addresses of RATE_LIMIT_ACCOUNTS_PER_MINUTE)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ trustProxy: true, rateLimit: { accountsPerMinute: 2 } });
  });
  afterAll(() => t.close());

  const signUpFrom = (address: string) =>
    request(t.app)
      .post('/v1/accounts')
      .set('X-Forwarded-For', address)
      .send({ email: uniqueEmail(), password: PASSWORD });

  it("bounds an IPv4 /24 at five addresses' worth; an address past its own limit spends none of it", async () => {
    t.clock.freezeAt(aWindowStart(1));
    const first = [await signUpFrom('198.51.100.1'), await signUpFrom('198.51.100.1')];
    expect(first.map((response) => [response.status, response.headers['ratelimit']])).toEqual([
      [201, '"accounts";r=1;t=60, "accounts-network";r=9;t=60'],
      [201, '"accounts";r=0;t=60, "accounts-network";r=8;t=60'],
    ]);
    // Refused by its own limit, before its network counts it.
    for (let i = 0; i < 3; i += 1) expectRateLimited(await signUpFrom('198.51.100.1'), 'accounts', '60');
    for (const host of [2, 3, 4, 5])
      for (let i = 0; i < 2; i += 1) expect((await signUpFrom(`198.51.100.${host}`)).status).toBe(201);

    const refused = await signUpFrom('198.51.100.6');
    expectRefusalOf(refused, '60');
    expect(refused.headers['ratelimit']).toBe('"accounts";r=1;t=60, "accounts-network";r=0;t=60');
    expect(refused.body.detail).toContain('from this network');
    expect((await signUpFrom('198.51.101.6')).status).toBe(201);
  });

  it('bounds an IPv6 /48 alike, each /64 in it one address', async () => {
    t.clock.freezeAt(aWindowStart(2));
    for (const subnet of [1, 2, 3, 4, 5]) {
      expect((await signUpFrom(`2001:db8:7:${subnet}::1`)).status).toBe(201);
      expect((await signUpFrom(`2001:db8:7:${subnet}::2`)).status).toBe(201);
    }
    const refused = await signUpFrom('2001:db8:7:6::1');
    expectRefusalOf(refused, '60');
    expect(refused.headers['ratelimit']).toBe('"accounts";r=1;t=60, "accounts-network";r=0;t=60');
    expect((await signUpFrom('2001:db8:8:1::1')).status).toBe(201);
  });

  it('leaves requests without a key uncounted where RATE_LIMIT_ANONYMOUS_PER_MINUTE is 0', async () => {
    t.clock.freezeAt(aWindowStart(3));
    for (let i = 0; i < 3; i += 1) {
      const response = await request(t.app).get('/healthz');
      expect(response.status).toBe(200);
      expect(response.headers['ratelimit']).toBeUndefined();
    }
  });
});
