import request from 'supertest';
import { aBrowser, csrfOf, PASSWORD, uniqueEmail } from '../support/http/browser';
import { startTestApp, type TestApp } from '../support/http/test-app';

describe('dashboard behind a proxy (TRUST_PROXY set)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ trustProxy: 'loopback' });
  });
  afterAll(() => t.close());

  it('marks the cookies Secure when the proxy says the request came over HTTPS', async () => {
    // By hand: a cookie jar does not send Secure cookies over the test's plain HTTP, a browser
    // talking HTTPS to the proxy does.
    const form = await request(t.app).get('/signup').set('X-Forwarded-Proto', 'https');
    const formCookie = cookieNamed(form, 'tns_form');
    expect(formCookie).toMatch(/; Secure/);
    const response = await request(t.app)
      .post('/signup')
      .set({ 'X-Forwarded-Proto': 'https', Cookie: formCookie.split(';')[0] ?? '' })
      .type('form')
      .send({ csrf: csrfOf(form.text), email: uniqueEmail(), password: PASSWORD, next: '/dashboard' });
    expect(response.status).toBe(201);
    const session = cookieNamed(response, 'tns_session');
    expect(session).toMatch(/; Secure/);
    expect(session).toMatch(/HttpOnly/);
    expect(session).toMatch(/SameSite=Lax/);
  });

  it('throttles sign-in per client address: 20 failures across emails lock that address only', async () => {
    const account = await t.signUp();
    const from = (address: string) => aBrowser(t, { 'X-Forwarded-For': address });
    for (let attempt = 0; attempt < 20; attempt++) {
      expect((await from('198.51.100.7').logIn(uniqueEmail('guess'), PASSWORD)).status).toBe(401);
    }
    expect((await from('198.51.100.7').logIn(account.email)).status).toBe(401);
    expect((await from('203.0.113.9').logIn(account.email)).status).toBe(303);
  }, 60_000); // 22 real scrypt verifications
});

describe('dashboard without TRUST_PROXY', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('ignores X-Forwarded-Proto: no Secure flag on plain HTTP', async () => {
    const response = await aBrowser(t, { 'X-Forwarded-Proto': 'https' }).signUp();
    expect(response.status).toBe(201);
    expect(cookieNamed(response, 'tns_session')).not.toMatch(/Secure/);
  });
});

function cookieNamed(response: request.Response, name: string): string {
  const cookies: unknown = response.headers['set-cookie'];
  const found = Array.isArray(cookies)
    ? cookies.find((cookie: unknown) => typeof cookie === 'string' && cookie.startsWith(`${name}=`))
    : undefined;
  if (typeof found !== 'string') throw new Error(`no ${name} cookie set`);
  return found;
}
