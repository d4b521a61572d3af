import request from 'supertest';
import { asAccount, type AccountClient } from '../support/http/as-account';
import { aBrowser } from '../support/http/browser';
import { answerClientErrors } from '../../src/interfaces/http/client-errors';
import { serviceLog } from '../support/service-log';
import { startTestApp, type TestApp } from '../support/http/test-app';

// Input crafted to break the service must get a 4xx problem and change nothing; never a 500
// (startTestApp's close() fails the file if the app logged any internal error).
describe('hostile input', () => {
  let t: TestApp;
  let me: AccountClient;
  beforeAll(async () => {
    t = await startTestApp();
    me = asAccount(t, await t.signUp());
  });
  afterAll(() => t.close());

  const expect400 = (response: request.Response, field?: string) => {
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    if (field) expect(response.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
  };

  it('refuses the NUL character in bodies, query strings, paths and cursors', async () => {
    expect400(await me.post('/v1/anchors', { description: 'a\u0000b' }), 'description');
    expect400(
      await me.post('/v1/paradox-checks', {
        timeline_id: 'primary',
        proposed_changes: [{ event: 'x\u0000', time: '2000-01-01T00:00:00Z' }],
      }),
      'proposed_changes[0].event',
    );
    expect400(await me.get('/v1/check-paradox', { timeline_id: 'a\u0000b' }), 'timeline_id');
    expect400(await request(t.app).get('/timeline/abc%00def').set('Authorization', me.account.auth), 'timeline_id');
    const cursor = Buffer.from('0:x\u0000y').toString('base64url');
    expect400(await me.get('/timelines', { cursor }), 'cursor');
    expect(await t.prisma.anchor.count({ where: { accountId: me.account.id } })).toBe(0);
  });

  it('answers a malformed %-escape in the path with 400 malformed_request, with or without a key', async () => {
    for (const auth of [me.account.auth, undefined]) {
      const call = request(t.app).get('/timeline/%ZZ');
      const response = await (auth ? call.set('Authorization', auth) : call);
      // Express decodes the path while matching routes, before any authentication runs.
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('malformed_request');
    }
  });

  it('refuses an overlong path parameter', async () => {
    expect400(
      await request(t.app)
        .get(`/timeline/${'t'.repeat(5_000)}`)
        .set('Authorization', me.account.auth),
      'timeline_id',
    );
  });

  it('refuses JSON nested deeper than any request needs, without exhausting the stack', async () => {
    const deep = JSON.parse(`${'['.repeat(2_000)}${']'.repeat(2_000)}`);
    expect400(await me.post('/v1/anchors', { description: 'x', z: deep }));
    expect400(
      await request(t.app)
        .get('/v1/check-paradox')
        .set('Authorization', me.account.auth)
        .send({ timeline_id: 'primary', z: deep }),
    );
  });

  it('refuses JSON nested as deep as the body limit allows, with an Idempotency-Key too', async () => {
    // Deeper than any recursive walk of the parsed value survives (JSON.stringify included).
    const body = `{"description":"x","z":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}`;
    for (const key of [undefined, 'deep-key']) {
      const call = request(t.app)
        .post('/v1/anchors')
        .set('Authorization', me.account.auth)
        .set('Content-Type', 'application/json');
      expect400(await (key ? call.set('Idempotency-Key', key) : call).send(body));
    }
    expect(await t.prisma.anchor.count({ where: { accountId: me.account.id } })).toBe(0);
    // Refused as it is parsed, before the key's digest walks it: nothing is kept under the key.
    expect(await t.prisma.idempotencyKey.count({ where: { accountId: me.account.id } })).toBe(0);
  });

  it('refuses keys that object machinery would swallow, like __proto__ and constructor', async () => {
    const body = '{"description":"x","__proto__":{"admin":true},"constructor":1}';
    const response = await request(t.app)
      .post('/v1/anchors')
      .set('Authorization', me.account.auth)
      .set('Content-Type', 'application/json')
      .send(body);
    expect400(response, '__proto__');
    expect400(await me.get('/timelines', { constructor: 'x' }), 'constructor');
  });

  it('treats null as a wrong type, not as an omitted optional field', async () => {
    expect400(await me.post('/v1/anchors', { description: 'x', timestamp: null }), 'timestamp');
    expect400(await me.post('/v1/travels', { destination: 'primary', items_transported: null }), 'items_transported');
    expect400(
      await me.post('/api/v1/scan-events', {
        location: 'home',
        time_range: '2000-01-01T00:00:00Z/2001-01-01T00:00:00Z',
        limit: null,
      }),
      'limit',
    );
  });

  it('takes page sizes as whole numbers only: digits in a query string, numbers in a body', async () => {
    const range = '2000-01-01T00:00:00Z/2001-01-01T00:00:00Z';
    expect400(await me.post('/api/v1/scan-events', { location: 'home', time_range: range, limit: true }), 'limit');
    expect400(await me.post('/api/v1/scan-events', { location: 'home', time_range: range, limit: ' 7 ' }), 'limit');
    expect400(await me.get('/timelines', { limit: '1e1' }), 'limit');
    expect((await me.get('/timelines', { limit: '7' })).status).toBe(200);
    expect((await me.post('/api/v1/scan-events', { location: 'home', time_range: range, limit: 7 })).status).toBe(200);
  });

  it('does not let a GET body of null hide the query string', async () => {
    const response = await request(t.app)
      .get('/timelines?limit=abc')
      .set('Authorization', me.account.auth)
      .set('Content-Type', 'application/json')
      .send('null');
    expect400(response, 'limit');
  });

  it('stores text up to its documented length in any script', async () => {
    const cjk = '時'.repeat(1_000);
    const anchor = await me.post('/v1/anchors', { description: cjk });
    expect(anchor.status).toBe(201);
    const item = await me.post('/v1/items', { description: cjk, location: '場'.repeat(200) });
    expect(item.status).toBe(201);
    const events = await me.post('/api/v1/scan-events', {
      location: '場'.repeat(200),
      time_range: '0001-01-01T00:00:00Z/9999-12-31T23:59:59Z',
    });
    expect(events.body.events.map((event: { description: string }) => event.description)).toEqual([
      `Item retrieved: ${cjk}`,
    ]);
  });
});

describe('hostile input on the dashboard forms', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('answers NUL characters and impossible key ids with pages, never a 500', async () => {
    const browser = aBrowser(t);
    expect((await browser.logIn('a\u0000b@example.com')).status).toBe(400);
    expect((await browser.signUp()).status).toBe(201);
    const named = await browser.submit('/dashboard/keys', { name: 'a\u0000b' });
    expect(named.status).toBeLessThan(500);
    for (const action of ['roll', 'revoke']) {
      expect((await browser.submit(`/dashboard/keys/%00/${action}`)).status).toBe(404);
      expect((await browser.submit(`/dashboard/keys/${'k'.repeat(300)}/${action}`)).status).toBe(404);
    }
  });
});

describe('requests Node refuses before routing', () => {
  it('answers headers over 16 KiB with a 431 problem, not a bare status', async () => {
    const t = await startTestApp();
    const server = t.app.listen(0, '127.0.0.1');
    const log = serviceLog();
    answerClientErrors(server, log.logger);
    try {
      await new Promise((resolve) => server.once('listening', resolve));
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      const response = await fetch(`http://127.0.0.1:${port}/timelines`, {
        headers: { 'X-Padding': 'x'.repeat(20_000) },
      });
      expect(response.status).toBe(431);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const id = response.headers.get('x-request-id');
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(await response.json()).toMatchObject({ status: 431, code: 'headers_too_large', request_id: id });
      // The id a client quotes finds the refusal in the log.
      expect(log.lines).toEqual([
        expect.objectContaining({
          msg: 'request refused',
          request_id: id,
          res: { status: 431 },
          reason: 'HPE_HEADER_OVERFLOW',
        }),
      ]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
      await t.close();
    }
  });

  it('refuses lone surrogates, which validators cannot encode, with a 400 naming the field', async () => {
    const t = await startTestApp();
    try {
      const body = '{"email":"a\\ud800@example.com","password":"correct horse battery"}';
      const response = await request(t.app).post('/v1/accounts').set('Content-Type', 'application/json').send(body);
      expect(response.status).toBe(400);
      expect(response.body.errors).toEqual([expect.objectContaining({ field: 'email' })]);
    } finally {
      await t.close();
    }
  });
});
