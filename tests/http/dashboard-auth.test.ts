import request from 'supertest';
import { MAX_SESSIONS_PER_ACCOUNT } from '../../src/core/domain/session';
import { aBrowser, type Browser, csrfOf, freshKeyOf, PASSWORD, uniqueEmail } from '../support/http/browser';
import { earlierPasswordHash } from '../support/builders/earlier-password-hash';
import { QUICK_SCRYPT_COST, startTestApp, type TestApp } from '../support/http/test-app';
import { ScryptCredentialHasher } from '../../src/infrastructure/system/scrypt-credential-hasher';

const SAME_MESSAGE = 'The email or password is not right, or sign-in is paused after repeated failures.';

function setCookie(response: request.Response, name: string): string | undefined {
  const cookies: unknown = response.headers['set-cookie'];
  return Array.isArray(cookies) ? cookies.find((cookie: string) => cookie.startsWith(`${name}=`)) : undefined;
}

/** The account-wide back-off of `email`, as guessing from many addresses sets it off: 51 failures this hour. */
async function backOff(t: TestApp, email: string): Promise<void> {
  const now = t.clock.now().getTime();
  const counter = {
    failures: 51,
    windowStartedAt: new Date(now - 59 * 60_000),
    lockedUntil: new Date(now + 60 * 60_000),
  };
  const key = `email:${email}`;
  await t.prisma.loginThrottle.upsert({ where: { key }, create: { key, ...counter }, update: counter });
}

describe('dashboard: signing up, in and out', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('signs up in the browser: a session cookie and the first key shown once', async () => {
    const browser = aBrowser(t);
    const email = uniqueEmail();
    const response = await browser.signUp(email);

    expect(response.status).toBe(201);
    expect(response.headers['cache-control']).toBe('no-store');
    const cookie = setCookie(response, 'tns_session');
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).not.toMatch(/Secure/);
    const key = freshKeyOf(response.text);
    const anchor = await request(t.app)
      .post('/v1/anchors')
      .set('Authorization', `Bearer ${key}`)
      .send({ description: 'Home' });
    expect(anchor.status).toBe(201);

    const account = await t.prisma.account.findUniqueOrThrow({ where: { email } });
    const sessions = await t.prisma.session.findMany({ where: { accountId: account.id } });
    expect(sessions).toHaveLength(1);
    // Only a digest of the cookie's token is stored.
    const token = /tns_session=([^;]+)/.exec(cookie ?? '')?.[1] ?? '';
    expect(token.length).toBeGreaterThanOrEqual(43);
    expect(JSON.stringify(sessions)).not.toContain(token);

    const later = await browser.get('/dashboard');
    expect(later.status).toBe(200);
    expect(later.text).not.toContain(key);
    expect(later.text).toContain(`${key.slice(0, 12)}…`);
  });

  it('refuses a sign-up with a bad email, a short, blank or common password, and an email already taken', async () => {
    const browser = aBrowser(t);
    expect((await browser.signUp('not-an-email')).status).toBe(400);
    const page = await browser.get('/signup');
    const short = await browser.post('/signup', {
      csrf: csrfOf(page.text),
      email: uniqueEmail(),
      password: 'short',
      next: '/dashboard',
    });
    expect(short.status).toBe(400);
    expect(short.text).toContain('password must be 15 to 256 characters long');
    for (const [password, why] of [
      ['1234567812345678', 'one attackers try first'],
      [' '.repeat(16), 'only white space'],
    ]) {
      const accounts = await t.prisma.account.count();
      const form = await browser.get('/signup');
      const weak = await browser.post('/signup', {
        csrf: csrfOf(form.text),
        email: uniqueEmail(),
        password,
        next: '/dashboard',
      });
      expect(weak.status).toBe(400);
      expect(weak.text).toContain(why);
      expect(await t.prisma.account.count()).toBe(accounts);
    }

    const email = uniqueEmail();
    await aBrowser(t).signUp(email);
    const taken = await browser.signUp(email.toUpperCase());
    expect(taken.status).toBe(409);
    expect(taken.text).toContain('Sign in instead');
  });

  it('keeps POST /v1/accounts working for scripts, and such an account can sign in', async () => {
    const account = await t.signUp();
    const response = await aBrowser(t).logIn(account.email);
    expect(response.status).toBe(303);
    expect(response.headers.location).toBe('/dashboard');
  });

  it('signs in and goes to a local `next` only', async () => {
    const account = await t.signUp();
    const toDocs = await aBrowser(t).logIn(account.email, PASSWORD, '/docs');
    expect(toDocs.headers.location).toBe('/docs');
    const elsewhere = await aBrowser(t).logIn(account.email, PASSWORD, '//evil.example/steal');
    expect(elsewhere.headers.location).toBe('/dashboard');
  });

  it('answers a wrong password, an unknown email and a locked sign-in with the same message and status', async () => {
    const account = await t.signUp();
    const wrong = await aBrowser(t).logIn(account.email, 'wrong password!');
    const unknown = await aBrowser(t).logIn(uniqueEmail('nobody'), PASSWORD);
    for (let attempt = 0; attempt < 4; attempt++) await aBrowser(t).logIn(account.email, 'wrong password!');
    const locked = await aBrowser(t).logIn(account.email, PASSWORD);

    for (const response of [wrong, unknown, locked]) {
      expect(response.status).toBe(401);
      expect(response.text).toContain(SAME_MESSAGE);
      expect(setCookie(response, 'tns_session')).toBeUndefined();
    }
    const bodyOf = (response: request.Response) => response.text.replace(/value="[^"]*"/g, '');
    expect(bodyOf(wrong)).toEqual(bodyOf(unknown));
    expect(bodyOf(wrong)).toEqual(bodyOf(locked));
  }, 30_000); // every attempt is a real scrypt verification

  it('locks an email from an address for 15 minutes after 5 failures in 15 minutes, then lets it in', async () => {
    const account = await t.signUp();
    for (let attempt = 0; attempt < 5; attempt++) {
      expect((await aBrowser(t).logIn(account.email, `wrong ${attempt}`)).status).toBe(401);
    }
    expect((await aBrowser(t).logIn(account.email)).status).toBe(401);
    const pairKey = `email-address:${account.email}|127.0.0.1`;
    const counter = await t.prisma.loginThrottle.findUniqueOrThrow({ where: { key: pairKey } });
    // Five attempts evaluated, the sixth counted and refused unevaluated: it set the lock.
    expect(counter.failures).toBe(6);
    expect(counter.lockedUntil).not.toBeNull();

    t.clock.advanceMinutes(14);
    expect((await aBrowser(t).logIn(account.email)).status).toBe(401);
    t.clock.advanceMinutes(1);
    expect((await aBrowser(t).logIn(account.email)).status).toBe(303);
    // A good sign-in clears the count of its email from its address.
    expect(await t.prisma.loginThrottle.findUnique({ where: { key: pairKey } })).toBeNull();
  }, 30_000);

  it('lets a browser that signed in before pass the account-wide back-off that stops unknown ones', async () => {
    const known = aBrowser(t);
    const email = uniqueEmail('known');
    const signedUp = await known.signUp(email);
    expect(setCookie(signedUp, 'tns_device')).toMatch(/^tns_device=\d+\.0\.[\w-]{43}; Max-Age=15552000; Path=\/; /);
    expect(setCookie(signedUp, 'tns_device')).toMatch(/; HttpOnly; SameSite=Lax$/);
    expect((await known.submit('/logout')).status).toBe(303);
    const other = aBrowser(t);
    await other.signUp(uniqueEmail('other'));
    await other.submit('/logout');
    // Guessing from many addresses set off the account's back-off an hour ago... less a minute.
    await backOff(t, email);

    expect((await aBrowser(t).logIn(email)).status).toBe(401);
    // Known to another email only: unknown to this one.
    expect((await other.logIn(email)).status).toBe(401);
    expect((await known.logIn(email)).status).toBe(303);
  }, 30_000);

  it('lets its known browser change the password during the back-off, and forgets every other browser', async () => {
    const email = uniqueEmail('changing');
    const here = aBrowser(t);
    await here.signUp(email);
    const elsewhere = aBrowser(t);
    expect((await elsewhere.logIn(email)).status).toBe(303);
    // Guessing from many addresses set off the account's back-off.
    await backOff(t, email);
    const changed = await here.submit('/dashboard/password', {
      current_password: PASSWORD,
      new_password: 'a quiet lantern over the fjord',
    });
    expect(changed.status).toBe(200);
    // Issued again to this browser, with the account's new stamp, for every path.
    expect(setCookie(changed, 'tns_device')).toMatch(/^tns_device=\d+\.1\.[\w-]{43}; Max-Age=15552000; Path=\/; /);

    // The back-off still holds: the browser that changed it passes, the one that knew the account before does not.
    expect((await elsewhere.logIn(email, 'a quiet lantern over the fjord')).status).toBe(401);
    expect((await aBrowser(t).logIn(email, 'a quiet lantern over the fjord')).status).toBe(401);
    expect((await here.submit('/logout')).status).toBe(303);
    expect((await here.logIn(email, 'a quiet lantern over the fjord')).status).toBe(303);
  }, 30_000);

  it('asks an account whose password the rule now refuses for another, and changes it', async () => {
    const account = await t.signUp();
    // Opened before today's rule, with what it accepted then, hashed as passwords were then.
    await t.prisma.account.update({
      where: { id: account.id },
      data: { passwordHash: earlierPasswordHash('Password123!') },
    });
    const here = aBrowser(t);
    const elsewhere = aBrowser(t);
    expect((await here.logIn(account.email, 'Password123!')).status).toBe(303);
    expect((await elsewhere.logIn(account.email, 'Password123!')).status).toBe(303);
    const stored = await t.prisma.account.findUniqueOrThrow({ where: { id: account.id } });
    const { N, r, p } = QUICK_SCRYPT_COST;
    expect(stored.passwordHash).toMatch(new RegExp(`^scrypt2\\$${N}\\$${r}\\$${p}\\$`));
    expect(stored.passwordChangeDue).toBe(true);
    expect((await here.get('/dashboard')).text).toContain('Your password was accepted under an earlier rule');

    const refused = await here.submit('/dashboard/password', {
      current_password: 'Password123!',
      new_password: 'Password123!Password123!',
    });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('one attackers try first');
    const wrong = await here.submit('/dashboard/password', {
      current_password: 'Password124!',
      new_password: 'a quiet lantern over the fjord',
    });
    expect(wrong.status).toBe(403);
    expect(wrong.text).toContain('The current password is not right');

    const changed = await here.submit('/dashboard/password', {
      current_password: 'Password123!',
      new_password: 'a quiet lantern over the fjord',
    });
    expect(changed.status).toBe(200);
    expect(changed.text).toContain('Password changed.');
    expect(changed.text).not.toContain('Your password was accepted under an earlier rule');
    expect((await elsewhere.get('/dashboard')).headers.location).toBe('/login?next=/dashboard');
    expect((await t.prisma.account.findUniqueOrThrow({ where: { id: account.id } })).passwordChangeDue).toBe(false);
    expect((await aBrowser(t).logIn(account.email, 'a quiet lantern over the fjord')).status).toBe(303);
    expect((await aBrowser(t).logIn(account.email, 'Password123!')).status).toBe(401);
  }, 30_000);

  it('evaluates at most 5 of a burst of concurrent guesses at one email, then stays locked', async () => {
    const account = await t.signUp();
    const verify = jest.spyOn(ScryptCredentialHasher.prototype, 'verifyPassword');
    try {
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, n) => aBrowser(t).logIn(account.email, `guess ${n}`)),
      );
      expect(answers.every((answer) => answer.status === 401)).toBe(true);
      expect(verify.mock.calls.length).toBeLessThanOrEqual(5);
    } finally {
      verify.mockRestore();
    }
    expect((await aBrowser(t).logIn(account.email)).status).toBe(401);
  }, 60_000);

  it('signs out: the session and its console key stop working at once', async () => {
    const browser = aBrowser(t);
    await browser.signUp();
    const docs = await browser.get('/docs');
    const consoleKey = /"apiKey":"(tns_[^"]+)"/.exec(docs.text)?.[1] ?? '';
    expect(
      (await request(t.app).post('/v1/anchors').set('Authorization', `Bearer ${consoleKey}`).send({ description: 'x' }))
        .status,
    ).toBe(201);

    const out = await browser.submit('/logout');
    expect(out.status).toBe(303);
    expect(out.headers.location).toBe('/login');
    expect(setCookie(out, 'tns_session')).toMatch(/Expires=Thu, 01 Jan 1970/);

    expect((await browser.get('/dashboard')).headers.location).toBe('/login?next=/dashboard');
    expect(
      (await request(t.app).post('/v1/anchors').set('Authorization', `Bearer ${consoleKey}`).send({ description: 'x' }))
        .status,
    ).toBe(401);
  });

  it('ends a session after 12 hours idle, and its console key with it', async () => {
    const browser = aBrowser(t);
    await browser.signUp();
    const consoleKey = /"apiKey":"(tns_[^"]+)"/.exec((await browser.get('/docs')).text)?.[1] ?? '';

    t.clock.advanceMinutes(11 * 60);
    expect((await browser.get('/dashboard')).status).toBe(200); // activity moves the idle limit
    t.clock.advanceMinutes(11 * 60);
    expect((await browser.get('/dashboard')).status).toBe(200);
    expect(
      (await request(t.app).post('/v1/anchors').set('Authorization', `Bearer ${consoleKey}`).send({ description: 'x' }))
        .status,
    ).toBe(201);

    t.clock.advanceMinutes(12 * 60);
    // Expired before anyone looks at the session again: the key's own expiry refuses it.
    expect(
      (await request(t.app).post('/v1/anchors').set('Authorization', `Bearer ${consoleKey}`).send({ description: 'x' }))
        .status,
    ).toBe(401);
    const page = await browser.get('/dashboard');
    expect(page.status).toBe(303);
    expect(page.headers.location).toBe('/login?next=/dashboard');
  });

  it('keeps 10 sessions an account: signing in past them ends the oldest and its console key', async () => {
    const first = aBrowser(t);
    const email = uniqueEmail();
    await first.signUp(email);
    const consoleKeyOf = async (browser: Browser) =>
      /"apiKey":"(tns_[^"]+)"/.exec((await browser.get('/docs')).text)?.[1] ?? '';
    const firstKey = await consoleKeyOf(first);
    const others: Browser[] = [];
    for (let n = 0; n < MAX_SESSIONS_PER_ACCOUNT; n++) {
      t.clock.advanceMinutes(1);
      const browser = aBrowser(t);
      expect((await browser.logIn(email)).status).toBe(303);
      others.push(browser);
    }
    const anchor = (key: string) =>
      request(t.app).post('/v1/anchors').set('Authorization', `Bearer ${key}`).send({ description: 'x' });

    expect((await first.get('/dashboard')).headers.location).toBe('/login?next=/dashboard');
    expect((await anchor(firstKey)).status).toBe(401);
    for (const browser of others) {
      expect((await browser.get('/dashboard')).status).toBe(200);
      expect((await anchor(await consoleKeyOf(browser))).status).toBe(201);
    }
    // Eleven sign-ins, each a full-cost scrypt: about 2 s alone, over Jest's 5 s on a shared machine.
  }, 30_000);

  it('ends a session 7 days after sign-in however active it is', async () => {
    const browser = aBrowser(t);
    await browser.signUp();
    // 15 visits 11 hours apart: never idle for 12 hours, 165 hours in all.
    for (let visit = 0; visit < 15; visit++) {
      t.clock.advanceMinutes(11 * 60);
      expect((await browser.get('/dashboard')).status).toBe(200);
    }
    t.clock.advanceMinutes(3 * 60 + 1);
    expect((await browser.get('/dashboard')).status).toBe(303);
  });
});

describe('dashboard: cross-site request forgery', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('refuses a sign-in without a token, with a wrong token, or without the form cookie', async () => {
    const account = await t.signUp();
    const browser = aBrowser(t);
    await browser.get('/login');
    expect((await browser.post('/login', { email: account.email, password: PASSWORD })).status).toBe(403);
    expect((await browser.post('/login', { csrf: 'forged', email: account.email, password: PASSWORD })).status).toBe(
      403,
    );
    // A token copied from another browser does not fit this browser's form cookie.
    const other = csrfOf((await aBrowser(t).get('/login')).text);
    expect((await browser.post('/login', { csrf: other, email: account.email, password: PASSWORD })).status).toBe(403);
    const cookieless = await request(t.app)
      .post('/login')
      .type('form')
      .send({ csrf: other, email: account.email, password: PASSWORD });
    expect(cookieless.status).toBe(403);
    expect(await t.prisma.session.count()).toBe(0);
  });

  it('refuses a cross-site post even with a valid token', async () => {
    const account = await t.signUp();
    const browser = aBrowser(t);
    const csrf = csrfOf((await browser.get('/login')).text);
    const crossOrigin = await browser
      .post('/login', { csrf, email: account.email, password: PASSWORD })
      .set('Origin', 'https://evil.example');
    expect(crossOrigin.status).toBe(403);
    const crossSite = await browser
      .post('/login', { csrf, email: account.email, password: PASSWORD })
      .set('Sec-Fetch-Site', 'cross-site');
    expect(crossSite.status).toBe(403);
    const sameOrigin = await browser
      .post('/login', { csrf, email: account.email, password: PASSWORD })
      .set({ Host: 'tns.example', Origin: 'http://tns.example', 'Sec-Fetch-Site': 'same-origin' });
    expect(sameOrigin.status).toBe(303);
  });

  it('refuses dashboard forms without the session token, with a wrong one or from another origin', async () => {
    const browser = aBrowser(t);
    await browser.signUp();
    const before = await t.prisma.apiKey.count();
    expect((await browser.post('/dashboard/keys', { name: 'x' })).status).toBe(403);
    expect((await browser.post('/dashboard/keys', { name: 'x', csrf: 'wrong' })).status).toBe(403);
    const csrf = csrfOf((await browser.get('/dashboard')).text);
    expect(
      (await browser.post('/dashboard/keys', { name: 'x', csrf }).set('Origin', 'https://evil.example')).status,
    ).toBe(403);
    // Another session's token does not fit this session.
    const other = aBrowser(t);
    await other.signUp();
    const otherCsrf = csrfOf((await other.get('/dashboard')).text);
    expect((await browser.post('/dashboard/keys', { name: 'x', csrf: otherCsrf })).status).toBe(403);
    expect((await browser.post('/logout', { csrf: otherCsrf })).status).toBe(403);
    expect(await t.prisma.apiKey.count()).toBe(before + 2); // only the other browser's sign-up and console keys
    expect((await browser.post('/dashboard/keys', { name: 'x', csrf })).status).toBe(201);
  });
});
