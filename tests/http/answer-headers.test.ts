import request from 'supertest';
import { aBrowser, freshKeyOf } from '../support/http/browser';
import { startTestApp, type TestAccount, type TestApp } from '../support/http/test-app';

// docs/decisions.md, "Caching and content sniffing".
describe('answer headers: no-store and nosniff', () => {
  let t: TestApp;
  let me: TestAccount;
  beforeAll(async () => {
    t = await startTestApp();
    me = await t.signUp();
  });
  afterAll(() => t.close());

  const expectPrivate = (response: request.Response) => {
    expect([response.headers['cache-control'], response.headers['x-content-type-options']]).toEqual([
      'no-store',
      'nosniff',
    ]);
  };

  it('keeps the API key of a sign-up out of every cache', async () => {
    const response = await request(t.app)
      .post('/v1/accounts')
      .send({ email: `headers-${Date.now()}@example.com`, password: 'correct horse battery' });
    expect([response.status, typeof response.body.api_key]).toEqual([201, 'string']);
    expectPrivate(response);
  });

  it('keeps the pages that show a created or rolled key out of every cache', async () => {
    const browser = aBrowser(t);
    const signedUp = await browser.signUp();
    freshKeyOf(signedUp.text);
    expectPrivate(signedUp);
    const created = await browser.submit('/dashboard/keys', { name: 'ci' });
    const key = freshKeyOf(created.text);
    expectPrivate(created);
    const { id } = await t.prisma.apiKey.findFirstOrThrow({ where: { prefix: key.slice(0, 12) } });
    const rolled = await browser.submit(`/dashboard/keys/${id}/roll`);
    expect(rolled.status).toBe(200);
    freshKeyOf(rolled.text);
    expectPrivate(rolled);
  });

  it('sends nosniff and no-store on every API answer: JSON, problems, 404s, health', async () => {
    const answers = await Promise.all([
      request(t.app).get('/timelines').set('Authorization', me.auth),
      request(t.app).post('/v1/anchors').set('Authorization', me.auth).send({ description: 'Home' }),
      request(t.app).post('/v1/anchors').set('Authorization', me.auth).send({}),
      request(t.app)
        .post('/v1/anchors')
        .set('Authorization', me.auth)
        .set('Content-Type', 'application/json')
        .send('{"description": '),
      request(t.app).get('/timelines'),
      request(t.app).get('/no/such/route'),
      request(t.app).put('/v1/anchors').set('Authorization', me.auth),
      request(t.app).get('/healthz'),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 201, 400, 400, 401, 404, 405, 200]);
    for (const answer of answers) expectPrivate(answer);
  });
});
