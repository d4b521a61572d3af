import request from 'supertest';
import { SHIPPED_SCRYPT_COST } from '../../src/infrastructure/passwords/scrypt-hashing';
import { startTestApp, type TestApp } from '../support/http/test-app';

describe('POST /v1/accounts', () => {
  let t: TestApp;
  beforeAll(async () => {
    // The hashing as shipped, which this file checks.
    t = await startTestApp({ scryptCost: SHIPPED_SCRYPT_COST });
  });
  afterAll(() => t.close());

  it('opens an account with a working API key, a primary timeline, and stores only hashes', async () => {
    const email = `Ada.${Date.now()}@Example.com`;
    const response = await request(t.app).post('/v1/accounts').send({ email, password: 'correct horse battery' });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      id: expect.stringMatching(/^acc_[0-9a-f]{32}$/),
      email: email.toLowerCase(),
      api_key: expect.stringMatching(/^tns_[A-Za-z0-9_-]{43}$/),
      created_at: expect.any(String),
    });

    const timelines = await request(t.app).get('/timelines').set('Authorization', `Bearer ${response.body.api_key}`);
    expect(timelines.status).toBe(200);
    expect(timelines.body.timelines.map((timeline: { id: string }) => timeline.id)).toEqual(['primary']);

    const account = await t.prisma.account.findUniqueOrThrow({
      where: { id: response.body.id },
      include: { apiKeys: true },
    });
    expect(account.passwordHash).toMatch(/^scrypt2\$32768\$8\$3\$/);
    expect(account.passwordHash).not.toContain('correct horse battery');
    expect(account.apiKeys).toHaveLength(1);
    expect(account.apiKeys[0].digest).not.toContain(response.body.api_key);
    expect(response.body.api_key.startsWith(account.apiKeys[0].prefix)).toBe(true);
  });

  it('refuses a second account with the same email, in any letter case, with 409 email_taken', async () => {
    const email = `grace.${Date.now()}@example.com`;
    const first = await request(t.app).post('/v1/accounts').send({ email, password: 'grace password one' });
    expect(first.status).toBe(201);
    const again = await request(t.app)
      .post('/v1/accounts')
      .send({ email: email.toUpperCase(), password: 'grace password two' });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('email_taken');
    expect(await t.prisma.account.count({ where: { email } })).toBe(1);
  });

  it.each([
    // Under 15: refused by the request's shape, before its content is read.
    [{ email: 'a@example.com', password: 'Password123!' }, 'password'],
    [{ password: 'long enough, at fifteen' }, 'email'],
    [{ email: 'not-an-email', password: 'long enough, at fifteen' }, 'email'],
    [{ email: 'a@example.com', password: 'short' }, 'password'],
    [{ email: 'a@example.com', password: 12345678 }, 'password'],
    [{ email: 'a@example.com', password: 'long enough, at fifteen', admin: true }, 'admin'],
  ])('refuses %j with 400 naming %s, creating nothing', async (body, field) => {
    const before = await t.prisma.account.count();
    const response = await request(t.app).post('/v1/accounts').send(body);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('validation_failed');
    expect(response.body.errors.map((error: { field: string }) => error.field)).toContain(field);
    expect(await t.prisma.account.count()).toBe(before);
  });

  it.each([
    ['passwordpassword', 'password_too_common'],
    ['1234567812345678', 'password_too_common'],
    ['IloveyouIloveyou', 'password_too_common'],
    ['P@ssw0rdP@ssw0rd!', 'password_too_common'],
    ['x'.repeat(256), 'password_too_common'],
    [' '.repeat(16), 'password_blank'],
    ['\t \u00a0 \u2003 \u3000 ' + '\u200b'.repeat(8), 'password_blank'],
    ['       xxxxxxxx', 'password_too_short'],
    // NIST SP 800-63B-4: a zero-width space or a look-alike does not make a short password longer.
    ['password\u200b\u200b\u200b\u200b\u200b\u200b\u200b', 'password_too_short'],
  ])('refuses the password %j with 400 %s saying why, creating nothing', async (password, code) => {
    const before = await t.prisma.account.count();
    const response = await request(t.app)
      .post('/v1/accounts')
      .send({ email: `weak.${Date.now()}@example.com`, password });
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.body.code).toBe(code);
    const why: Record<string, RegExp> = {
      password_blank: /only white space/,
      password_too_short: /fewer than 15 characters besides the white space/,
      password_too_common: /one attackers try first/,
    };
    expect(response.body.detail).toMatch(why[code]);
    expect(await t.prisma.account.count()).toBe(before);
  });
});
