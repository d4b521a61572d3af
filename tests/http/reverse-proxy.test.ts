import { ALL_TIME, asAccount } from '../support/http/as-account';
import { getOperations, retrieveTheLamp } from '../support/http/get-operations';
import { csrfOf, PASSWORD, uniqueEmail } from '../support/http/browser';
import { aWindowStart } from '../support/http/rate-limit-windows';
import { startTestApp, type TestApp } from '../support/http/test-app';
import { behindNginx, type BehindNginx } from '../support/reverse-proxy/behind-nginx';
import { keptAlive, proxyClient, type ProxyClient, type ProxyResponse } from '../support/reverse-proxy/client';
import { freeLoopbackPort } from '../support/free-port';
import { startNginx, type Nginx } from '../support/reverse-proxy/nginx';
import { serviceLog, type ServiceLog } from '../support/service-log';
import { waitFor } from '../support/wait-for';

// Debian's nginx with the deployment's config (deploy/nginx/time-navigation-service.conf.template,
// docs/reverse-proxy.md) in front of the real app, all on loopback. Clients connect from other
// loopback addresses (127.0.0.2, ...) so that the address nginx sees is not nginx's own.

jest.setTimeout(60_000);

const ACCOUNTS_PER_MINUTE = 3;
/** The network bound of the account endpoints: five addresses' worth. */
const ACCOUNTS_PER_NETWORK = 5 * ACCOUNTS_PER_MINUTE;
const ANONYMOUS_PER_MINUTE = 40;
/** The template's: sign-up and sign-in pass their first request and a burst of 20 at once. */
const SIGN_UP_PASSES = 21;
/** The template's: every request, per address, 200 a second with a burst of 200. */
const REQUESTS_BURST = 200;
const REQUESTS_PER_SECOND = 200;
const HSTS = 'max-age=63072000';

describe('behind nginx, with TRUST_PROXY=1 (the one nginx hop)', () => {
  let t: TestApp;
  let proxy: BehindNginx;
  let client: ProxyClient;
  let log: ServiceLog;

  beforeAll(async () => {
    log = serviceLog();
    t = await startTestApp({
      trustProxy: 1,
      logger: log.logger,
      rateLimit: { accountsPerMinute: ACCOUNTS_PER_MINUTE, anonymousPerMinute: ANONYMOUS_PER_MINUTE },
    });
    proxy = await behindNginx(t.app);
    client = proxy.client;
  });
  afterAll(async () => {
    await proxy?.close();
    await t?.close();
  });

  describe('GET parameters in the query string or a JSON body', () => {
    let auth: Record<string, string>;
    let retrievalId: string;

    beforeAll(async () => {
      const account = await t.signUp();
      auth = { Authorization: account.auth };
      const a = asAccount(t, account);
      retrievalId = await retrieveTheLamp(a);
    });

    // Each GET of Families A and C with parameters that succeed, and one of them with another value.
    const operations = getOperations(() => retrievalId);

    it.each(operations)(
      'GET %s answers alike from a query string, a JSON body and a chunked JSON body',
      async (path, parameters) => {
        const fromQuery = await client({ path: `${path}?${new URLSearchParams(parameters())}`, headers: auth });
        const fromBody = await client({ path, headers: auth, body: parameters() });
        const fromChunks = await client({ path, headers: auth, body: parameters(), chunked: true });
        for (const response of [fromQuery, fromBody, fromChunks]) expect(response.status).toBe(200);
        const { status: _q, ...queryAnswer } = fromQuery.body;
        const { status: _b, ...bodyAnswer } = fromBody.body;
        const { status: _c, ...chunkedAnswer } = fromChunks.body;
        expect(bodyAnswer).toEqual(queryAnswer);
        expect(chunkedAnswer).toEqual(queryAnswer);
      },
    );

    it.each(operations)(
      'GET %s reads the body next to the query string: a parameter given differently in each is a 400 naming it',
      async (path, parameters, name, other) => {
        const response = await client({
          path: `${path}?${new URLSearchParams(parameters())}`,
          headers: auth,
          body: { ...parameters(), [name]: other },
        });
        expect(response.status).toBe(400);
        expect(response.body.code).toBe('validation_failed');
        expect(response.body.errors.map((error: { field: string }) => error.field)).toContain(name);
      },
    );

    it('carries the events the body asked for', async () => {
      const response = await client({
        path: '/v1/monitor-events',
        headers: auth,
        body: { location: 'Baghdad', time_range: ALL_TIME },
      });
      expect(response.status).toBe(200);
      expect(response.body.events.map((event: { description: string }) => event.description)).toEqual([
        'Item retrieved: Lamp',
      ]);
    });
  });

  describe('the client address (per-address limit of the account endpoints)', () => {
    it('counts each client by the address nginx saw, not by nginx and not by what the client wrote', async () => {
      const window = aWindowStart(1);
      t.clock.freezeAt(window);
      const spoofed = { 'X-Forwarded-For': '198.51.100.7' };
      for (let remaining = ACCOUNTS_PER_MINUTE - 1; remaining >= 0; remaining -= 1) {
        const response = await openAccount(client, '127.0.0.2', spoofed);
        expect(response.status).toBe(201);
        const ofNetwork = ACCOUNTS_PER_NETWORK - ACCOUNTS_PER_MINUTE + remaining;
        expect(response.headers['ratelimit']).toBe(
          `"accounts";r=${remaining};t=60, "accounts-network";r=${ofNetwork};t=60`,
        );
      }
      const refused = await openAccount(client, '127.0.0.2', spoofed);
      expect(refused.status).toBe(429);
      expect(refused.body.code).toBe('rate_limited');
      // Another client behind the same nginx has its whole allowance.
      const other = await openAccount(client, '127.0.0.3');
      expect(other.status).toBe(201);
      // Its network (127.0.0.0/24) has counted the first's three.
      expect(other.headers['ratelimit']).toBe(
        `"accounts";r=${ACCOUNTS_PER_MINUTE - 1};t=60, ` +
          `"accounts-network";r=${ACCOUNTS_PER_NETWORK - ACCOUNTS_PER_MINUTE - 1};t=60`,
      );
      expect(await addressesCounted(t, window)).toEqual(['address:127.0.0.2', 'address:127.0.0.3']);
    });
  });

  describe("nginx's request rates (limit_req), in front of the service's own limits", () => {
    it('passes a burst of sign-ups, which the service limits itself, then refuses the rest itself', async () => {
      t.clock.freezeAt(aWindowStart(5));
      const { answers, seconds } = await timed(async () => {
        const sent: ProxyResponse[] = [];
        for (let i = 0; i < SIGN_UP_PASSES + 9; i += 1) sent.push(await openAccount(client, '127.0.1.1'));
        return sent;
      });
      const { byService, byNginx } = answeredBy(answers);
      // The service's limit holds behind nginx: three accounts, then its own 429 with RateLimit fields.
      expect(byService.slice(0, ACCOUNTS_PER_MINUTE).map((response) => response.status)).toEqual([201, 201, 201]);
      for (const response of byService.slice(ACCOUNTS_PER_MINUTE))
        expect([response.status, response.body.code]).toEqual([429, 'rate_limited']);
      // nginx passes the first and its burst of 20 (one more every 3 s), and refuses the rest.
      expect(answers.slice(0, SIGN_UP_PASSES)).toEqual(byService.slice(0, SIGN_UP_PASSES));
      expect(byService.length).toBeLessThanOrEqual(SIGN_UP_PASSES + Math.ceil(seconds / 3));
      expect(byNginx.length).toBeGreaterThan(0);
      expectRefusedByNginx(byNginx[0], '3');
    });

    it('holds sign-ins and password changes to a zone of their own', async () => {
      t.clock.freezeAt(aWindowStart(6));
      const signIn = () =>
        client({
          method: 'POST',
          path: '/login',
          from: '127.0.1.2',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ email: uniqueEmail('signin'), password: PASSWORD }).toString(),
        });
      const { answers, seconds } = await timed(async () => {
        const sent: ProxyResponse[] = [];
        for (let i = 0; i < SIGN_UP_PASSES + 9; i += 1) sent.push(await signIn());
        return sent;
      });
      const { byService, byNginx } = answeredBy(answers);
      // The form without its token is refused by the service (403), past its limit with its 429.
      expect(byService.map((response) => response.status)).toEqual([
        ...Array<number>(ACCOUNTS_PER_MINUTE).fill(403),
        ...Array<number>(byService.length - ACCOUNTS_PER_MINUTE).fill(429),
      ]);
      expect(answers.slice(0, SIGN_UP_PASSES)).toEqual(byService.slice(0, SIGN_UP_PASSES));
      expect(byService.length).toBeLessThanOrEqual(SIGN_UP_PASSES + Math.ceil(seconds / 3));
      expectRefusedByNginx(byNginx[0], '3');
      // The sign-up zone is another: this address may still sign up, as far as nginx is concerned.
      const signUp = await openAccount(client, '127.0.1.2');
      expect([signUp.status, signUp.body.code, signUp.headers['ratelimit']]).toEqual([
        429,
        'rate_limited',
        '"accounts";r=0;t=60',
      ]);
    });

    it("refuses a flood from one address past 200 a second; the service's own allowance holds behind it", async () => {
      t.clock.freezeAt(aWindowStart(7));
      // Past the burst within 4 s: 250 requests a second, which 64 connections send even while two
      // busy cores take a quarter of a second to answer each.
      const agent = keptAlive(proxy.nginx, '127.0.1.3', 64);
      const flood = 5 * REQUESTS_BURST;
      const { answers, seconds } = await timed(() =>
        Promise.all(Array.from({ length: flood }, () => client({ path: '/healthz', from: '127.0.1.3', agent }))),
      ).finally(() => agent.destroy());
      const { byService, byNginx } = answeredBy(answers);
      expect(byNginx.length).toBeGreaterThan(0);
      expect(byService.length).toBeGreaterThan(REQUESTS_BURST);
      expect(byService.length).toBeLessThanOrEqual(REQUESTS_BURST + 1 + Math.ceil(REQUESTS_PER_SECOND * seconds));
      // Behind nginx, the service counts the client's own address: its allowance of requests
      // without a key, then its own 429.
      const statuses = byService.map((response) => response.status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(ANONYMOUS_PER_MINUTE);
      expect(statuses.filter((status) => status !== 200).every((status) => status === 429)).toBe(true);
      expectRefusedByNginx(byNginx[0], '1');
      // Another client behind the same nginx has its whole allowance, at nginx and at the service.
      const other = await client({ path: '/healthz', from: '127.0.1.4' });
      expect([other.status, other.headers['ratelimit']]).toEqual([
        200,
        `"anonymous";r=${ANONYMOUS_PER_MINUTE - 1};t=60`,
      ]);
    });

    it("sends Strict-Transport-Security with the service's answers and its own", async () => {
      const answer = await client({ path: '/healthz', from: '127.0.1.5' });
      expect([answer.status, answer.headers['strict-transport-security']]).toEqual([200, HSTS]);
      const refused = await client({ path: '/timelines', from: '127.0.1.5' });
      expect([refused.status, refused.headers['strict-transport-security']]).toEqual([401, HSTS]);
      const tooLarge = await client({
        method: 'POST',
        path: '/v1/anchors',
        from: '127.0.1.5',
        body: { description: 'x'.repeat(2 * 1024 * 1024) },
      });
      expect([tooLarge.status, tooLarge.headers['strict-transport-security']]).toEqual([413, HSTS]);
    });
  });

  /** Which answers the service gave (each carries its RateLimit fields here) and which nginx did. */
  function answeredBy(answers: readonly ProxyResponse[]) {
    const byService = answers.filter((response) => response.headers['ratelimit'] !== undefined);
    const byNginx = answers.filter((response) => response.headers['ratelimit'] === undefined);
    for (const response of byService)
      expect(serviceLogLine(log, String(response.headers['x-request-id']))).toBeDefined();
    return { byService, byNginx };
  }

  /** nginx's own 429: a problem document like the service's, without its RateLimit fields, never reaching it. */
  function expectRefusedByNginx(response: ProxyResponse | undefined, retryAfter: string): void {
    expect(response?.status).toBe(429);
    const id = String(response?.headers['x-request-id']);
    expect(response?.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response?.headers).toEqual(
      expect.objectContaining({
        'retry-after': retryAfter,
        'strict-transport-security': HSTS,
        'x-content-type-options': 'nosniff',
        'cache-control': 'no-store',
      }),
    );
    expect(response?.body).toEqual(
      expect.objectContaining({ type: '/problems/rate_limited', status: 429, code: 'rate_limited', request_id: id }),
    );
    expect(response?.body.detail).toContain('the proxy in front of the service');
    expect(serviceLogLine(log, id)).toBeUndefined();
  }

  describe('HTTPS, as nginx reports it in X-Forwarded-Proto', () => {
    it('signs a browser up through nginx: the Origin check passes and the cookies are Secure', async () => {
      const form = await client({ path: '/signup', from: '127.0.0.4' });
      expect(form.status).toBe(200);
      expect(cookieNamed(form, 'tns_form')).toMatch(/; Secure/);
      const response = await submitSignUp(client, proxy.nginx, form, { from: '127.0.0.4' });
      expect(response.status).toBe(201);
      const session = cookieNamed(response, 'tns_session');
      expect(session).toMatch(/; Secure/);
      expect(session).toMatch(/HttpOnly/);
    });

    it('believes nginx, not the client: X-Forwarded-Proto: http sent over TLS still counts as HTTPS', async () => {
      const form = await client({ path: '/signup', from: '127.0.0.5', headers: { 'X-Forwarded-Proto': 'http' } });
      expect(cookieNamed(form, 'tns_form')).toMatch(/; Secure/);
    });

    it("drops a client's X-Forwarded-Host, so it cannot replace the host the Origin check compares with", async () => {
      const form = await client({ path: '/signup', from: '127.0.0.6' });
      const evil = 'https://evil.example';
      const response = await submitSignUp(client, proxy.nginx, form, {
        from: '127.0.0.6',
        origin: evil,
        headers: { 'X-Forwarded-Host': 'evil.example' },
      });
      expect(response.status).toBe(403);
      expect(response.headers['set-cookie'] ?? []).not.toEqual(
        expect.arrayContaining([expect.stringMatching(/^tns_session=/)]),
      );
    });
  });

  describe('the request id', () => {
    it("passes the client's X-Request-Id through: the answer, nginx's log and the service's log carry it", async () => {
      const response = await client({ path: '/timelines', headers: { 'X-Request-Id': 'trace-42.proxy:1' } });
      expect(response.status).toBe(401);
      expect(response.headers['x-request-id']).toBe('trace-42.proxy:1');
      expect(response.body.request_id).toBe('trace-42.proxy:1');
      expect(await proxyLogLine(proxy.nginx, 'trace-42.proxy:1')).toEqual(
        expect.objectContaining({ path: '/timelines', status: 401, client: '127.0.0.1' }),
      );
      expect(serviceLogLine(log, 'trace-42.proxy:1')).toEqual(
        expect.objectContaining({
          req: { method: 'GET', path: '/timelines', remoteAddress: '127.0.0.1' },
          res: { status: 401 },
        }),
      );
    });

    it("gives a request without one nginx's $request_id, which the service keeps and answers", async () => {
      const response = await client({ path: '/healthz' });
      expect(response.status).toBe(200);
      const id = String(response.headers['x-request-id']);
      expect(id).toMatch(/^[0-9a-f]{32}$/);
      expect(await proxyLogLine(proxy.nginx, id)).toEqual(expect.objectContaining({ path: '/healthz', status: 200 }));
      expect(serviceLogLine(log, id)).toEqual(
        expect.objectContaining({ req: { method: 'GET', path: '/healthz', remoteAddress: '127.0.0.1' } }),
      );
    });

    it("replaces an id the service would refuse with nginx's, so both logs still agree", async () => {
      const response = await client({ path: '/no-such-route', headers: { 'X-Request-Id': 'not acceptable <script>' } });
      expect(response.status).toBe(404);
      const id = String(response.headers['x-request-id']);
      expect(id).toMatch(/^[0-9a-f]{32}$/);
      expect(response.body.request_id).toBe(id);
      expect(await proxyLogLine(proxy.nginx, id)).toEqual(
        expect.objectContaining({ path: '/no-such-route', status: 404 }),
      );
      expect(serviceLogLine(log, id)).toEqual(expect.objectContaining({ res: { status: 404 } }));
    });
  });

  describe('bodies too large', () => {
    it("leaves bodies up to nginx's 1 MiB to the service's 413; larger ones get the same problem", async () => {
      const account = await t.signUp();
      const ofSize = (bytes: number) => ({ description: 'x'.repeat(bytes) });
      const service = await client({
        method: 'POST',
        path: '/v1/anchors',
        headers: { Authorization: account.auth },
        body: ofSize(100 * 1024),
      });
      expect(service.status).toBe(413);
      expect(service.body.code).toBe('payload_too_large');
      expect(serviceLogLine(log, String(service.headers['x-request-id']))).toEqual(
        expect.objectContaining({ res: { status: 413 } }),
      );

      const proxied = await client({
        method: 'POST',
        path: '/v1/anchors',
        headers: { Authorization: account.auth },
        body: ofSize(2 * 1024 * 1024),
      });
      expect(proxied.status).toBe(413);
      expect(proxied.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect([proxied.headers['x-content-type-options'], proxied.headers['cache-control']]).toEqual([
        'nosniff',
        'no-store',
      ]);
      expect(proxied.body).toEqual(
        expect.objectContaining({
          status: 413,
          code: 'payload_too_large',
          request_id: proxied.headers['x-request-id'],
        }),
      );
      expect(serviceLogLine(log, String(proxied.headers['x-request-id']))).toBeUndefined();
    });
  });
});

describe('behind nginx, without TRUST_PROXY', () => {
  let t: TestApp;
  let proxy: BehindNginx;

  beforeAll(async () => {
    t = await startTestApp({ rateLimit: { accountsPerMinute: ACCOUNTS_PER_MINUTE } });
    proxy = await behindNginx(t.app);
  });
  afterAll(async () => {
    await proxy?.close();
    await t?.close();
  });

  it("sees every client as nginx: X-Forwarded-For is not believed, neither nginx's entry nor a client's", async () => {
    const window = aWindowStart(1);
    t.clock.freezeAt(window);
    const statuses: number[] = [];
    statuses.push((await openAccount(proxy.client, '127.0.0.2', { 'X-Forwarded-For': '198.51.100.7' })).status);
    statuses.push((await openAccount(proxy.client, '127.0.0.3')).status);
    statuses.push((await openAccount(proxy.client, '127.0.0.4', { 'X-Forwarded-For': '203.0.113.9' })).status);
    statuses.push((await openAccount(proxy.client, '127.0.0.5')).status);
    expect(statuses).toEqual([201, 201, 201, 429]);
    expect(await addressesCounted(t, window)).toEqual(['address:127.0.0.1']);
  });

  it("treats the request as plain HTTP: cookies not Secure, a browser's form post fails the Origin check", async () => {
    // An hour ahead, a window the test above does not use: here every client counts as nginx.
    t.clock.freezeAt(aWindowStart(60));
    const form = await proxy.client({ path: '/signup', from: '127.0.0.6' });
    expect(cookieNamed(form, 'tns_form')).not.toMatch(/Secure/);
    const response = await submitSignUp(proxy.client, proxy.nginx, form, { from: '127.0.0.6' });
    expect(response.status).toBe(403);
  });
});

describe('nginx with the service down', () => {
  let nginx: Nginx;
  beforeAll(async () => {
    // A port nothing listens on: the service is not running.
    nginx = await startNginx(`127.0.0.1:${await freeLoopbackPort()}`);
  });
  afterAll(() => nginx?.stop());

  it('answers 502 as a problem document with Retry-After and the request id', async () => {
    const response = await proxyClient(nginx)({
      method: 'POST',
      path: '/v1/anchors',
      body: { description: 'Home' },
      headers: { 'X-Request-Id': 'down-1' },
    });
    expect(response.status).toBe(502);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.headers['retry-after']).toBe('5');
    expect(response.headers['strict-transport-security']).toBe(HSTS);
    expect(response.headers['x-request-id']).toBe('down-1');
    expect([response.headers['x-content-type-options'], response.headers['cache-control']]).toEqual([
      'nosniff',
      'no-store',
    ]);
    expect(response.body).toEqual(
      expect.objectContaining({
        type: '/problems/bad_gateway',
        status: 502,
        code: 'bad_gateway',
        request_id: 'down-1',
      }),
    );
  });
});

/** What `send` answered, and how many seconds it took. */
async function timed<T>(send: () => Promise<T>): Promise<{ answers: T; seconds: number }> {
  const started = performance.now();
  const answers = await send();
  return { answers, seconds: (performance.now() - started) / 1000 };
}

function openAccount(client: ProxyClient, from: string, headers: Record<string, string> = {}): Promise<ProxyResponse> {
  return client({
    method: 'POST',
    path: '/v1/accounts',
    from,
    headers,
    body: { email: uniqueEmail('proxied'), password: PASSWORD },
  });
}

/** The per-address counters of one window, by key: the addresses the service saw. */
async function addressesCounted(t: TestApp, windowStart: Date): Promise<string[]> {
  const counters = await t.prisma.rateLimitCounter.findMany({
    where: { windowStart, key: { startsWith: 'address:' } },
    orderBy: { key: 'asc' },
  });
  return counters.map((counter) => counter.key);
}

/** Posts the sign-up form of `form` as a browser on nginx's origin would, or as a client claiming `origin`. */
function submitSignUp(
  client: ProxyClient,
  nginx: Nginx,
  form: ProxyResponse,
  options: { from: string; origin?: string; headers?: Record<string, string> },
): Promise<ProxyResponse> {
  return client({
    method: 'POST',
    path: '/signup',
    from: options.from,
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      Origin: options.origin ?? nginx.origin,
      ...(options.origin === undefined ? { 'Sec-Fetch-Site': 'same-origin' } : {}),
      Cookie: cookieNamed(form, 'tns_form').split(';')[0] ?? '',
      ...options.headers,
    },
    body: new URLSearchParams({
      csrf: csrfOf(form.text),
      email: uniqueEmail(),
      password: PASSWORD,
      next: '/dashboard',
    }).toString(),
  });
}

function cookieNamed(response: ProxyResponse, name: string): string {
  const found = (response.headers['set-cookie'] ?? []).find((cookie) => cookie.startsWith(`${name}=`));
  if (found === undefined) throw new Error(`no ${name} cookie set (status ${response.status})`);
  return found;
}

/** nginx writes its access log line as the request ends, just after the answer: wait for it. */
function proxyLogLine(nginx: Nginx, requestId: string): Promise<Record<string, unknown>> {
  return waitFor(async () => (await nginx.accessLog()).find((entry) => entry.request_id === requestId), {
    what: `nginx's access log line of ${requestId}`,
    intervalMs: 20,
  });
}

function serviceLogLine(log: ServiceLog, requestId: string): Record<string, unknown> | undefined {
  return log.lines.find((line) => line.request_id === requestId);
}
