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

    const answers = await Promise.all(Array.from({ length: attempts }, (_unused, n) => create(n % 2 === 0 ? a : b, n)));

    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(MAX_WEBHOOK_ENDPOINTS);
    expect(statuses.filter((status) => status === 409)).toHaveLength(attempts - MAX_WEBHOOK_ENDPOINTS);
    expect(await a.prisma.webhookEndpoint.count({ where: { accountId: me.id } })).toBe(MAX_WEBHOOK_ENDPOINTS);
    const listed = await request(b.app).get('/v1/webhook-endpoints').set('Authorization', me.auth);
    expect(listed.body.endpoints).toHaveLength(MAX_WEBHOOK_ENDPOINTS);
  });
});
