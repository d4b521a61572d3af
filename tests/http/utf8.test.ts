import request from 'supertest';
import { startTestApp, type TestAccount, type TestApp } from '../support/http/test-app';
import { accountState } from '../support/isolation/account-state';

/** Sends `bytes` as the body as they are (superagent would serialise a Buffer given to send() as JSON). */
function withBody(call: request.Test, type: string, bytes: Buffer): request.Test {
  // Node's client frames a GET's body only by a length it is given.
  call.set('Content-Type', type).set('Content-Length', String(bytes.length)).write(bytes);
  return call;
}

const RANGE = 'time_range=0001-01-01T00%3A00%3A00Z%2F9999-12-31T23%3A59%3A59Z';

/** A JSON body whose text holds `bytes` raw inside a string: what a client with a broken encoder sends. */
function jsonWith(before: string, bytes: readonly number[], after: string): Buffer {
  return Buffer.concat([Buffer.from(before), Buffer.from(bytes), Buffer.from(after)]);
}

// Text that is not UTF-8 used to be decoded with U+FFFD in place of each bad byte and stored so.
describe('text that is not UTF-8', () => {
  let t: TestApp;
  let account: TestAccount;

  beforeAll(async () => {
    t = await startTestApp();
    account = await t.signUp();
  });
  afterAll(() => t.close());

  const unchanged = async (act: () => Promise<request.Response>) => {
    const before = await accountState(t.prisma, account.id, ['last_used_at']);
    const accounts = await t.prisma.account.count();
    const response = await act();
    expect(await accountState(t.prisma, account.id, ['last_used_at'])).toEqual(before);
    expect(await t.prisma.account.count()).toBe(accounts);
    return response;
  };

  describe('in a JSON body', () => {
    it.each([
      ['B', 'post', '/v1/anchors', '{"description":"Home', '"}'],
      ['A', 'post', '/v1/set-anchor', '{"description":"Home', '"}'],
      ['C', 'post', '/api/v1/travel', '{"destination_time":"1969-07-20T20:17:40Z","location":"Tranquility', '"}'],
      ['accounts', 'post', '/v1/accounts', '{"email":"utf8@example.com","password":"correct horse battery', '"}'],
      [
        'A, a GET',
        'get',
        '/v1/retrieve-item',
        '{"item_description":"Lamp',
        '","location":"Baghdad","time":"0800-01-01T00:00:00Z"}',
      ],
      ['C, a GET', 'get', '/api/v1/check-timeline', '{"timeline_id":"primary","significant_event":"Landing', '"}'],
    ] as const)(
      'family %s: %s %s answers 400 malformed_json saying the body is not UTF-8, and changes nothing',
      async (_family, method, path, before, after) => {
        for (const bytes of [[0xff], [0xc3], [0xc0, 0xaf], [0xed, 0xa0, 0x80]]) {
          const response = await unchanged(() =>
            withBody(
              request(t.app)[method](path).set('Authorization', account.auth),
              'application/json',
              jsonWith(before, bytes, after),
            ),
          );
          expect(response.status).toBe(400);
          expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
          expect(response.body.code).toBe('malformed_json');
          expect(response.body.detail).toContain('not valid UTF-8');
        }
      },
    );

    it('takes UTF-8 text as sent, charset named or not', async () => {
      for (const type of ['application/json', 'application/json; charset=utf-8', 'application/json; charset=UTF-8']) {
        const response = await withBody(
          request(t.app).post('/v1/anchors').set('Authorization', account.auth),
          type,
          Buffer.from('{"description":"Café ☕ 𝄞"}'),
        );
        expect(response.status).toBe(201);
        expect(response.body.description).toBe('Café ☕ 𝄞');
      }
    });
    it.each([
      ['utf-16le', Buffer.from('{"description":"Home"}', 'utf16le')],
      ['utf-32le', Buffer.from([0x7b, 0, 0, 0, 0x7d, 0, 0, 0])],
      ['utf-7', Buffer.from('{"description":"Home"}')],
    ])('refuses JSON in %s with 415, and changes nothing', async (charset, bytes) => {
      const response = await unchanged(() =>
        withBody(
          request(t.app).post('/v1/anchors').set('Authorization', account.auth),
          `application/json; charset=${charset}`,
          bytes,
        ),
      );
      expect(response.status).toBe(415);
      expect(response.body.code).toBe('unsupported_media_type');
      expect(response.body.detail).toContain('UTF-8');
    });
  });

  describe('in a query string', () => {
    it.each([
      ['A', `/v1/monitor-events?location=Caf%E9&${RANGE}`, 'location'],
      [
        'A',
        '/v1/retrieve-item?item_description=Lamp%C3&location=Baghdad&time=0800-01-01T00%3A00%3A00Z',
        'item_description',
      ],
      ['B', '/timelines?cursor=%FF', 'cursor'],
      ['C', '/api/v1/check-timeline?timeline_id=primary&significant_event=%ED%A0%80', 'significant_event'],
      ['C', `/api/v1/monitor-paradox?timeline_id=primary%C0%AF&${RANGE}`, 'timeline_id'],
      ['B, on a POST', '/v1/anchors?note=%FF', 'note'],
    ])('family %s: %s answers 400 naming %s as not UTF-8, and changes nothing', async (_family, url, field) => {
      const call = url.startsWith('/v1/anchors')
        ? request(t.app).post(url).send({ description: 'Home' })
        : request(t.app).get(url);
      const response = await unchanged(() => call.set('Authorization', account.auth));
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('validation_failed');
      expect(response.body.errors).toEqual([{ field, message: 'is not valid UTF-8 once its %-escapes are decoded' }]);
    });

    it('names no parameter when the name itself is not UTF-8', async () => {
      const response = await request(t.app)
        .get(`/v1/monitor-events?%FF=x&location=Home&${RANGE}`)
        .set('Authorization', account.auth);
      expect(response.status).toBe(400);
      expect(response.body.errors).toEqual([
        { field: '(query)', message: 'has a parameter name that is not valid UTF-8 once its %-escapes are decoded' },
      ]);
    });

    it('takes %-escaped UTF-8 and + as a space, as before', async () => {
      const response = await request(t.app)
        .get(`/v1/monitor-events?location=Caf%C3%A9+%F0%9D%84%9E&${RANGE}`)
        .set('Authorization', account.auth);
      expect(response.status).toBe(200);
      expect(response.body.location).toBe('Café 𝄞');
    });
  });

  describe('in the path', () => {
    it('answers a path parameter with a %-escape that is not UTF-8 with 400 malformed_request', async () => {
      for (const id of ['%FF', 'tml_%C3', '%ED%A0%80']) {
        const response = await request(t.app).get(`/timeline/${id}`).set('Authorization', account.auth);
        expect(response.status).toBe(400);
        expect(response.body.code).toBe('malformed_request');
        expect(response.body.detail).toContain('not valid UTF-8');
      }
    });

    it('reads a path parameter escaped as UTF-8 as that text', async () => {
      const response = await request(t.app).get('/timeline/caf%C3%A9').set('Authorization', account.auth);
      expect(response.status).toBe(404);
      expect(response.body.timeline_id).toBe('café');
    });

    it('answers a path that names no operation with 404, whatever its escapes', async () => {
      const response = await request(t.app).get('/v1/anchors%FF').set('Authorization', account.auth);
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('route_not_found');
    });
  });
});
