import request from 'supertest';
import { randomBytes } from 'node:crypto';
import { buildContainer } from '../../src/composition/container';
import { ConfigError, readConfig } from '../../src/config';
import { createDatabaseClients } from '../../src/infrastructure/database/driver/prisma-client';
import { createApp } from '../../src/interfaces/http/app';
import { aBrowser, freshKeyOf } from '../support/http/browser';
import { aWindowStart, expectRateLimited } from '../support/http/rate-limit-windows';
import { startTestApp, type TestAccount, type TestApp } from '../support/http/test-app';
import { ShiftableWallClock } from '../support/shiftable-wall-clock';

describe('rate limiting per account (RATE_LIMIT_PER_SECOND)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ rateLimit: { perAccountPerSecond: 3 } });
  });
  afterAll(() => t.close());

  const anchor = (account: TestAccount) =>
    request(t.app).post('/v1/anchors').set('Authorization', account.auth).send({ description: 'Home' });

  it('answers the IETF RateLimit fields with a decreasing remainder under the limit', async () => {
    const me = await t.signUp();
    t.clock.freezeAt(aWindowStart(1));
    const remainders: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const response = await request(t.app).get('/timelines').set('Authorization', me.auth);
      expect(response.status).toBe(200);
      expect(response.headers['ratelimit-policy']).toBe('"default";q=3;w=1');
      remainders.push(response.headers['ratelimit']);
    }
    expect(remainders).toEqual(['"default";r=2;t=1', '"default";r=1;t=1', '"default";r=0;t=1']);
  });

  it('counts a page as one request per 100 items it asks for, in the body or the query', async () => {
    const me = await t.signUp();
    const scan = (limit: number) =>
      request(t.app)
        .post('/api/v1/scan-events')
        .set('Authorization', me.auth)
        .send({ location: 'Nowhere', time_range: '1900-01-01T00:00:00Z/1901-01-01T00:00:00Z', limit });
    const monitor = (limit: string) =>
      request(t.app)
        .get('/v1/monitor-events')
        .query({ location: 'Nowhere', time_range: '1900-01-01T00:00:00Z/1901-01-01T00:00:00Z', limit })
        .set('Authorization', me.auth);

    t.clock.freezeAt(aWindowStart(20));
    const threePages = await scan(300);
    expect(threePages.status).toBe(200);
    expect(threePages.headers['ratelimit']).toBe('"default";r=0;t=1');
    expectRateLimited(await request(t.app).get('/timelines').set('Authorization', me.auth), 'default', '1');

    // A page asking for more than the whole quota costs the whole quota: it is possible, alone.
    t.clock.freezeAt(aWindowStart(21));
    const wholeQuota = await scan(301);
    expect([wholeQuota.status, wholeQuota.headers['ratelimit']]).toEqual([200, '"default";r=0;t=1']);
    const after = await scan(1);
    expect(after.status).toBe(429);
    expect(after.body.detail).toContain('a page counts one per 100 items asked for');

    t.clock.freezeAt(aWindowStart(22));
    expect((await scan(100)).headers['ratelimit']).toBe('"default";r=2;t=1');
    // Three requests' worth, of two left: refused, and the one its first step counted is spent.
    const overQuota = await monitor('201');
    expect([overQuota.status, overQuota.body.code, overQuota.headers['ratelimit']]).toEqual([
      429,
      'rate_limited',
      '"default";r=1;t=1',
    ]);

    // A limit that validation refuses costs one request, and is refused as invalid.
    t.clock.freezeAt(aWindowStart(23));
    expect((await monitor('1e9')).status).toBe(400);
    expect((await monitor('5000000')).status).toBe(400);
  });

  it('refuses the request over the limit with 429, Retry-After and a problem, before doing anything', async () => {
    const me = await t.signUp();
    t.clock.freezeAt(aWindowStart(2));
    for (let i = 0; i < 3; i += 1) expect((await anchor(me)).status).toBe(201);
    const refused = await anchor(me);
    expectRateLimited(refused, 'default', '1');
    expect(await t.prisma.anchor.count({ where: { accountId: me.id } })).toBe(3);

    // The next one-second window has the whole allowance again.
    t.clock.advanceSeconds(1);
    const next = await anchor(me);
    expect(next.status).toBe(201);
    expect(next.headers['ratelimit']).toBe('"default";r=2;t=1');
  });

  it('counts per account: its keys and its console keys share one allowance, another account has its own', async () => {
    const browser = aBrowser(t);
    const first = freshKeyOf((await browser.signUp()).text);
    const second = freshKeyOf((await browser.submit('/dashboard/keys', { name: 'second' })).text);
    const other = await t.signUp();
    t.clock.freezeAt(aWindowStart(3));
    const withKey = (key: string) =>
      request(t.app).post('/v1/anchors').set('Authorization', `Bearer ${key}`).send({ description: 'Home' });
    const consoleKey = /"apiKey":"(tns_[^"]+)"/.exec((await browser.get('/docs')).text)?.[1] ?? '';
    expect((await withKey(first)).status).toBe(201);
    expect((await withKey(second)).status).toBe(201);
    expect((await withKey(consoleKey)).status).toBe(201);
    for (const key of [first, second, consoleKey]) expectRateLimited(await withKey(key), 'default', '1');
    expect((await anchor(other)).status).toBe(201);
  });

  it('is shared by two service processes over one database', async () => {
    const me = await t.signUp();
    const instant = aWindowStart(4);
    t.clock.freezeAt(instant);
    // A second process: its own container, clock and Prisma pool on the same database.
    const { prisma, sql } = createDatabaseClients(t.connectionString);
    const clock = new ShiftableWallClock();
    clock.freezeAt(instant);
    const second = createApp(buildContainer({ prisma, sql, wallClock: clock }), {
      formSecret: randomBytes(32).toString('base64url'),
      rateLimit: { perAccountPerSecond: 3 },
    });
    try {
      const apps = [t.app, second, t.app];
      const remainders: string[] = [];
      for (const app of apps) {
        const response = await request(app)
          .post('/v1/anchors')
          .set('Authorization', me.auth)
          .send({ description: 'Home' });
        expect(response.status).toBe(201);
        remainders.push(response.headers['ratelimit']);
      }
      expect(remainders).toEqual(['"default";r=2;t=1', '"default";r=1;t=1', '"default";r=0;t=1']);
      expectRateLimited(
        await request(second).post('/v1/anchors').set('Authorization', me.auth).send({ description: 'Home' }),
        'default',
        '1',
      );
      expect(await t.prisma.anchor.count({ where: { accountId: me.id } })).toBe(3);
    } finally {
      await prisma.$disconnect();
    }
  });

  it('deletes windows that are over, opportunistically, and keeps those that are not', async () => {
    const me = await t.signUp();
    const old = new Date(Date.now() - 10 * 60_000);
    await t.prisma.rateLimitCounter.create({
      data: { key: 'api-key:long-gone', windowStart: old, windowEnd: new Date(old.getTime() + 1000), count: 7 },
    });
    // An hour's window that began as long ago is not over.
    await t.prisma.rateLimitCounter.create({
      data: { key: 'kept-bytes:acc_hour', windowStart: old, windowEnd: new Date(old.getTime() + 3_600_000), count: 7 },
    });
    // A fresh process sweeps on its first counted request (and then at most once a minute).
    const { prisma, sql } = createDatabaseClients(t.connectionString);
    try {
      const fresh = createApp(buildContainer({ prisma, sql }), {
        formSecret: randomBytes(32).toString('base64url'),
        rateLimit: { perAccountPerSecond: 3 },
      });
      // Windows over before the request was sent: not the request's own, which may be over by the
      // time it is answered on a busy machine.
      const asked = new Date();
      expect((await request(fresh).get('/timelines').set('Authorization', me.auth)).status).toBe(200);
      const left = await t.prisma.rateLimitCounter.findMany({ where: { windowEnd: { lte: asked } } });
      expect(left).toEqual([]);
      expect(await t.prisma.rateLimitCounter.count({ where: { key: 'kept-bytes:acc_hour' } })).toBe(1);
    } finally {
      await prisma.$disconnect();
    }
  });

  it('counts concurrent requests exactly: a burst gets the quota and no more', async () => {
    const me = await t.signUp();
    t.clock.freezeAt(aWindowStart(5));
    const statuses = await Promise.all(
      Array.from({ length: 10 }, () => anchor(me).then((response) => response.status)),
    );
    expect(statuses.filter((status) => status === 201)).toHaveLength(3);
    expect(statuses.filter((status) => status === 429)).toHaveLength(7);
  });
});

describe('rate limiting of the public account endpoints per client address', () => {
  let t: TestApp;
  beforeAll(async () => {
    // Behind a proxy whose X-Forwarded-For names the client, as TRUST_PROXY makes it.
    t = await startTestApp({ trustProxy: true, rateLimit: { accountsPerMinute: 2 } });
  });
  afterAll(() => t.close());

  const signUpFrom = (address: string, email: string) =>
    request(t.app)
      .post('/v1/accounts')
      .set('X-Forwarded-For', address)
      .send({ email, password: 'correct horse battery' });

  it('lets an address open accounts up to the limit per minute, then answers 429 and opens none', async () => {
    t.clock.freezeAt(aWindowStart(1));
    const stamp = `${process.pid}-${Date.now()}`;
    const first = await signUpFrom('203.0.113.7', `a-${stamp}@example.com`);
    expect(first.status).toBe(201);
    // Its network's wider bound is listed beside it: five addresses' worth.
    expect(first.headers['ratelimit-policy']).toBe('"accounts";q=2;w=60, "accounts-network";q=10;w=60');
    expect(first.headers['ratelimit']).toBe('"accounts";r=1;t=60, "accounts-network";r=9;t=60');
    expect((await signUpFrom('203.0.113.7', `b-${stamp}@example.com`)).status).toBe(201);

    expectRateLimited(await signUpFrom('203.0.113.7', `c-${stamp}@example.com`), 'accounts', '60');
    expect(await t.prisma.account.count({ where: { email: `c-${stamp}@example.com` } })).toBe(0);
    // The dashboard's sign-up and sign-in share the address's allowance.
    expectRateLimited(
      await request(t.app)
        .post('/login')
        .set('X-Forwarded-For', '203.0.113.7')
        .type('form')
        .send({ email: 'x@example.com' }),
      'accounts',
      '60',
    );
    expectRateLimited(
      await request(t.app).post('/signup').set('X-Forwarded-For', '203.0.113.7').type('form').send({}),
      'accounts',
      '60',
    );
    // So does the dashboard's password change: each costs a password check.
    expectRateLimited(
      await request(t.app).post('/dashboard/password').set('X-Forwarded-For', '203.0.113.7').type('form').send({}),
      'accounts',
      '60',
    );

    // Another address is not affected; the same one may go on in the next minute.
    expect((await signUpFrom('198.51.100.20', `d-${stamp}@example.com`)).status).toBe(201);
    t.clock.advanceSeconds(60);
    expect((await signUpFrom('203.0.113.7', `e-${stamp}@example.com`)).status).toBe(201);
  });

  it("counts an IPv6 client's whole /64 as one address", async () => {
    t.clock.freezeAt(aWindowStart(3));
    const stamp = `${process.pid}-${Date.now()}`;
    expect((await signUpFrom('2001:db8:5:5::1', `f-${stamp}@example.com`)).status).toBe(201);
    expect((await signUpFrom('2001:db8:5:5::2', `g-${stamp}@example.com`)).status).toBe(201);
    expectRateLimited(await signUpFrom('2001:db8:5:5:abcd::3', `h-${stamp}@example.com`), 'accounts', '60');
    expect((await signUpFrom('2001:db8:5:6::1', `i-${stamp}@example.com`)).status).toBe(201);
  });

  it('leaves API key requests to the per-account limit, which is off here', async () => {
    const me = await t.signUp();
    const response = await request(t.app).get('/timelines').set('Authorization', me.auth);
    expect(response.status).toBe(200);
    expect(response.headers['ratelimit']).toBeUndefined();
  });
});

describe('RATE_LIMIT_PER_SECOND', () => {
  it('defaults to 100 per account and 10 account requests per address per minute', () => {
    expect(readConfig({})).toEqual(
      expect.objectContaining({ rateLimitPerSecond: 100, rateLimitAccountsPerMinute: 10 }),
    );
  });

  it('accepts 0, which turns the limit off', () => {
    expect(readConfig({ RATE_LIMIT_PER_SECOND: '0', RATE_LIMIT_ACCOUNTS_PER_MINUTE: '0' })).toEqual(
      expect.objectContaining({ rateLimitPerSecond: 0, rateLimitAccountsPerMinute: 0 }),
    );
  });

  it.each(['-1', '1.5', 'ten', '1e3'])('refuses %s with a message naming the setting', (value) => {
    expect(() => readConfig({ RATE_LIMIT_PER_SECOND: value })).toThrow(ConfigError);
    expect(() => readConfig({ RATE_LIMIT_PER_SECOND: value })).toThrow(/RATE_LIMIT_PER_SECOND must be a whole number/);
  });

  it('0 answers every request without RateLimit fields and without counting', async () => {
    const t = await startTestApp({ rateLimit: { perAccountPerSecond: 0, accountsPerMinute: 0 } });
    try {
      const me = await t.signUp();
      for (let i = 0; i < 5; i += 1) {
        const response = await request(t.app).get('/timelines').set('Authorization', me.auth);
        expect(response.status).toBe(200);
        expect(response.headers['ratelimit']).toBeUndefined();
        expect(response.headers['ratelimit-policy']).toBeUndefined();
      }
      expect(await t.prisma.rateLimitCounter.count()).toBe(0);
    } finally {
      await t.close();
    }
  });
});
