// Two service instances on one PostgreSQL database, as two processes would be, creating one
// account's webhook endpoints at once: the account's limit holds across them, as each creation
// counts the endpoints and adds one in a unit of work guarded by the account's version.
// Needs DATABASE_URL: the embedded PGlite serves one process only (jest.config.js collects
// `*.server.test.ts` only then).
import request from 'supertest';
import { MAX_WEBHOOK_ENDPOINTS } from '../../src/core/domain/webhook-endpoint';
import { startTestApp, type TestApp } from '../support/http/test-app';

describe('webhook endpoints created by two processes at once', () => {
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    a = await startTestApp();
    b = await startTestApp({ sharing: a });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it(`keeps the account to ${MAX_WEBHOOK_ENDPOINTS}, every other creation refused 409`, async () => {
    const me = await a.signUp();
    const create = (t: TestApp, n: number) =>
      request(t.app)
        .post('/v1/webhook-endpoints')
        .set('Authorization', me.auth)
        .send({ url: `https://example.com/${n}`, event_types: ['event.recorded'] });
    const attempts = 2 * MAX_WEBHOOK_ENDPOINTS + 4;

    const answers = await Promise.all(
      Array.from({ length: attempts }, (_unused, n) => retryingUnavailable(() => create(n % 2 === 0 ? a : b, n))),
    );

    const outcomes = answers.map((answer) => `${answer.status} ${answer.body?.code ?? 'created'}`);
    expect(outcomes.sort()).toEqual([
      ...Array<string>(MAX_WEBHOOK_ENDPOINTS).fill('201 created'),
      ...Array<string>(attempts - MAX_WEBHOOK_ENDPOINTS).fill('409 too_many_webhook_endpoints'),
    ]);
    expect(await a.prisma.webhookEndpoint.count({ where: { accountId: me.id } })).toBe(MAX_WEBHOOK_ENDPOINTS);
    const listed = await request(b.app).get('/v1/webhook-endpoints').set('Authorization', me.auth);
    expect(listed.body.endpoints).toHaveLength(MAX_WEBHOOK_ENDPOINTS);
  });
});

/** How long a retry waits: shorter than the Retry-After a client would honour, as the test's time is bounded. */
const RETRY_WAIT_MS = 1_000;

/** Most attempts of a creation answered 503. */
const MOST_ATTEMPTS = 8;

/**
 * Sends again, as a client should, a creation answered 503 with Retry-After: on a loaded machine the
 * suites running beside this one may hold every connection PostgreSQL allows (the service answers
 * 503 service_unavailable), and that answer says nothing was created. The limit is what this test
 * is about, and a 503 neither keeps it nor breaks it.
 */
async function retryingUnavailable(send: () => Promise<request.Response>): Promise<request.Response> {
  for (let attempt = 1; ; attempt++) {
    const answer = await send();
    if (answer.status !== 503 || answer.headers['retry-after'] === undefined || attempt === MOST_ATTEMPTS)
      return answer;
    await new Promise((resolve) => setTimeout(resolve, RETRY_WAIT_MS));
  }
}
