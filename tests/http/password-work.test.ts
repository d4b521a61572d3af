// Password work (scrypt, zxcvbn) runs on a pool of threads of its own: never on the event loop or
// libuv's pool, which the API's requests keep; what waits for a thread is started by client
// address in turn, a browser holding its account's device cookie first; past the queue's bound,
// 503 password_checks_busy with Retry-After.
import { request as httpRequest, createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import request from 'supertest';
import type { PasswordTask } from '../../src/infrastructure/passwords/password-tasks';
import { PasswordWorkMetrics } from '../../src/infrastructure/metrics/password-work-metrics';
import { aBrowser, PASSWORD, uniqueEmail } from '../support/http/browser';
import { startTestApp, type TestApp } from '../support/http/test-app';
import { sumOf } from '../support/metrics/exposition';
import { holdLibuvPool } from '../support/passwords/held-libuv-pool';
import { HeldThreads } from '../support/passwords/held-threads';

const WRONG = 'not the password of this account';

/** Waits for `condition`, looking again every few milliseconds; gives up within the test's time. */
async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`still waiting for ${condition.toString()}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A request under way, and whether its answer has come. */
function underWay<T>(answer: PromiseLike<T>): { readonly answer: Promise<T>; readonly settled: () => boolean } {
  let settled = false;
  const whole = Promise.resolve(answer).finally(() => (settled = true));
  return { answer: whole, settled: () => settled };
}

/** Ends the held password work, running it for real, until `answer` has come. */
async function served<T>(held: HeldThreads, answer: PromiseLike<T>): Promise<T> {
  const request = underWay(answer);
  while (!request.settled()) {
    if (held.busy > 0) await held.finishOldest();
    else await new Promise((resolve) => setImmediate(resolve));
  }
  return request.answer;
}

/** `server` listening on a port of the loopback. */
async function listening(server: Server): Promise<Server> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/** A sign-up sent over a connection of its own, which the test may cut before the answer comes. */
function rawSignUp(server: Server, address: string): { destroy(): void } {
  const body = JSON.stringify({ email: uniqueEmail(), password: PASSWORD });
  const req = httpRequest({
    host: '127.0.0.1',
    port: (server.address() as AddressInfo).port,
    method: 'POST',
    path: '/v1/accounts',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
  });
  req.on('error', () => undefined);
  req.end(body);
  return { destroy: () => req.destroy() };
}

/** The client address a request's log line names (X-Forwarded-For behind the loopback proxy). */
const forwardedFor = (line: Record<string, unknown>) =>
  (line.req as { remoteAddress?: string } | undefined)?.remoteAddress;

/** The password a verification was asked for, or the kind of the task. */
const presentedIn = (task: PasswordTask | undefined) => (task?.kind === 'verify' ? task.presented.typed : task?.kind);

describe('password work on threads of its own', () => {
  const registry = new Registry();
  const metrics = new PasswordWorkMetrics(registry);
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ passwordChecks: { events: metrics } });
    metrics.watch(t.passwordPool);
  });
  afterAll(() => t.close());

  it("signs up with its strength check and its hash run on the pool's thread, libuv's pool all held", async () => {
    const held = holdLibuvPool();
    try {
      const response = await request(t.app).post('/v1/accounts').send({ email: uniqueEmail(), password: PASSWORD });
      expect(response.status).toBe(201);
    } finally {
      await held.release();
    }
    const text = await registry.metrics();
    expect(sumOf(text, 'tns_password_work_duration_seconds_count', { kind: 'strength' })).toBe(1);
    expect(sumOf(text, 'tns_password_work_duration_seconds_count', { kind: 'hash' })).toBe(1);
    expect(sumOf(text, 'tns_password_work_wait_seconds_count', { kind: 'hash', reason: 'none' })).toBe(1);
    expect(sumOf(text, 'tns_password_work_threads')).toBe(1);
    expect(sumOf(text, 'tns_password_work_queued')).toBe(0);
  });
});

describe('password work while every thread of its pool is busy', () => {
  const held = new HeldThreads(1);
  const registry = new Registry();
  const metrics = new PasswordWorkMetrics(registry);
  const logLines: Record<string, unknown>[] = [];
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      // Behind a proxy on the loopback: X-Forwarded-For names each client.
      trustProxy: 'loopback',
      passwordChecks: { threads: held, queued: 2, events: metrics },
      logger: pino({ level: 'info' }, { write: (line: string) => void logLines.push(JSON.parse(line)) }),
    });
    metrics.watch(t.passwordPool);
  });
  afterAll(() => t.close());

  const signUpFrom = (address: string) =>
    underWay(
      request(t.app)
        .post('/v1/accounts')
        .set('X-Forwarded-For', address)
        .send({ email: uniqueEmail(), password: PASSWORD }),
    );

  it('answers the API at once, and refuses more password work than may wait with 503 and Retry-After', async () => {
    const account = await served(held, t.signUp());
    const signUps = ['203.0.113.1', '203.0.113.2', '203.0.113.3'].map(signUpFrom);
    await until(() => t.passwordPool.stats().queued === 2);

    const timelines = await request(t.app).get('/timelines').set('Authorization', account.auth);
    expect(timelines.status).toBe(200);
    expect(t.passwordPool.stats()).toEqual({ threads: 1, running: 1, queued: 2 });
    expect(signUps.some((signUp) => signUp.settled())).toBe(false);

    const refused = await request(t.app)
      .post('/v1/accounts')
      .set('X-Forwarded-For', '203.0.113.1')
      .send({ email: uniqueEmail(), password: PASSWORD });
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ code: 'password_checks_busy', retry_after_seconds: expect.any(Number) });
    expect(refused.headers['retry-after']).toBe(String(refused.body.retry_after_seconds));
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);

    for (const answer of await served(held, Promise.all(signUps.map((signUp) => signUp.answer))))
      expect(answer.status).toBe(201);
    const text = await registry.metrics();
    expect(sumOf(text, 'tns_password_work_refused_total', { kind: 'strength' })).toBe(1);
    expect(sumOf(text, 'tns_password_work_wait_seconds_count', { reason: 'other_addresses' })).toBeGreaterThanOrEqual(
      2,
    );
    // Each request's log line says how long its password work waited, and which refusal it was.
    const lines = logLines.filter((line) => (line.req as { path?: string }).path === '/v1/accounts');
    expect(lines.filter((line) => Number(line.password_wait_ms) > 0).length).toBeGreaterThanOrEqual(2);
    expect(lines.filter((line) => line.code === 'password_checks_busy')).toHaveLength(1);
  });

  it('drops the password work of a client gone while it waited, answering no one, logging no fault', async () => {
    await served(held, t.signUp());
    const server = await listening(createServer(t.app));
    try {
      const startedBefore = held.started.length;
      const first = signUpFrom('203.0.113.41');
      await until(() => held.busy === 1);
      const leaving = rawSignUp(server, '203.0.113.42');
      await until(() => t.passwordPool.stats().queued === 1);

      leaving.destroy();
      await until(() => t.passwordPool.stats().queued === 0);
      expect((await served(held, first.answer)).status).toBe(201);
      // The first sign-up's two pieces ran; the one that left never had its strength checked.
      expect(held.started.slice(startedBefore).map(presentedIn)).toEqual(['strength', 'hash']);
      const text = await registry.metrics();
      expect(sumOf(text, 'tns_password_work_withdrawn_total', { kind: 'strength' })).toBe(1);
      expect(t.takeLoggedErrors()).toEqual([]);
      await until(() =>
        logLines.some((line) => line.msg === 'request aborted' && forwardedFor(line) === '203.0.113.42'),
      );
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("tells a sign-in page's visitor to come back later, with Retry-After", async () => {
    const email = (await served(held, t.signUp())).email;
    const waiting = ['203.0.113.21', '203.0.113.22', '203.0.113.23'].map(signUpFrom);
    await until(() => t.passwordPool.stats().queued === 2);

    const page = await aBrowser(t, { 'X-Forwarded-For': '203.0.113.24' }).logIn(email);
    expect(page.status).toBe(503);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain('Too many password checks are waiting on this server right now');
    expect(Number(page.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    await served(held, Promise.all(waiting.map((signUp) => signUp.answer)));
  });

  it("starts the work of a browser holding the account's device cookie before the others waiting", async () => {
    const owner = aBrowser(t, { 'X-Forwarded-For': '198.51.100.7' });
    const email = uniqueEmail('owner');
    await served(held, owner.signUp(email));
    expect((await owner.submit('/logout')).status).toBe(303);

    const guesses = ['203.0.113.31', '203.0.113.32', '203.0.113.33'].map((address) =>
      underWay(aBrowser(t, { 'X-Forwarded-For': address }).logIn(email, WRONG)),
    );
    await until(() => t.passwordPool.stats().queued === 2);
    const signIn = underWay(owner.logIn(email));
    await until(() => t.passwordPool.stats().queued === 3);

    // The first guess ends: the owner's verification starts, ahead of the two guesses that came first.
    await held.finishOldest();
    expect(presentedIn(held.started.at(-1))).toBe(PASSWORD);
    // It ends: a guess takes the thread before the owner's sign-in asks for its strength check,
    // which then waits ahead of the last guess, and starts next.
    await held.finishOldest();
    await until(() => t.passwordPool.stats().queued === 2);
    await held.finishOldest();
    expect(presentedIn(held.started.at(-1))).toBe('strength');
    await held.finishOldest();
    // The owner is in while the last guess still runs.
    expect((await signIn.answer).status).toBe(303);
    expect(presentedIn(held.started.at(-1))).toBe(WRONG);
    expect(guesses.filter((guess) => !guess.settled())).toHaveLength(1);

    for (const answer of await served(held, Promise.all(guesses.map((guess) => guess.answer))))
      expect(answer.status).toBe(401);
    const text = await registry.metrics();
    expect(sumOf(text, 'tns_password_work_wait_seconds_count', { reason: 'known_device' })).toBe(2);
  });
});
