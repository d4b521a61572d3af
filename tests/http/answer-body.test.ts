import request from 'supertest';
import { ALL_TIME, asAccount, type AccountClient } from '../support/http/as-account';
import { startTestApp, type TestApp } from '../support/http/test-app';

// send-answer.ts writes every JSON answer itself: its type, its length in bytes, no body to HEAD.
describe('answer bodies', () => {
  let t: TestApp;
  let me: AccountClient;
  beforeAll(async () => {
    t = await startTestApp();
    me = asAccount(t, await t.signUp());
    // Several events whose names are not ASCII: a page of well over 1,000 bytes, where a length in
    // characters would be short.
    for (const minute of ['10', '20', '30', '40', '50']) {
      await me.post('/v1/travel', { destination_time: `1875-01-01T12:${minute}:00Z`, location: 'Zürich ☃' });
      await me.post('/v1/anchors', { description: `Grüße aus Zürich ☃ ${'ä'.repeat(200)}` });
    }
  });
  afterAll(() => t.close());

  const bytesOf = (response: request.Response) => Buffer.byteLength(response.text);

  it('sends a page of events as UTF-8 JSON, its length counted in bytes', async () => {
    const page = await me.get('/v1/monitor-events', { location: 'Zürich ☃', time_range: ALL_TIME });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(bytesOf(page)).toBeGreaterThan(page.text.length);
    expect(Number(page.headers['content-length'])).toBe(bytesOf(page));
    expect(page.body.events).toHaveLength(10);
    const names = page.body.events.map((event: { description: string }) => event.description);
    expect(names).toContain(`Anchor set: Grüße aus Zürich ☃ ${'ä'.repeat(200)}`);
  });

  it('answers HEAD with the length of the GET and no body', async () => {
    const get = await me.get('/timelines');
    const head = await request(t.app).head('/timelines').set('Authorization', me.account.auth);
    expect([head.status, head.headers['content-type']]).toEqual([200, 'application/json; charset=utf-8']);
    expect(head.headers['content-length']).toBe(String(bytesOf(get)));
    expect(head.text).toBeUndefined();
  });

  it('sends a problem as problem+json with its headers, its length counted in bytes', async () => {
    const refused = await request(t.app).put('/v1/anchors').set('Authorization', me.account.auth);
    expect(refused.status).toBe(405);
    expect(refused.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(refused.headers.allow).toBe('POST');
    expect(Number(refused.headers['content-length'])).toBe(bytesOf(refused));
    expect(JSON.parse(refused.text)).toMatchObject({ status: 405, code: 'method_not_allowed' });
  });

  // Not ready, with its Retry-After: database-outage.test.ts.
  it('answers a ready probe as JSON with no Retry-After', async () => {
    const ready = await request(t.app).get('/readyz');
    expect([ready.status, ready.body, ready.headers['retry-after']]).toEqual([200, { status: 'ready' }, undefined]);
    expect(Number(ready.headers['content-length'])).toBe(bytesOf(ready));
  });
});
