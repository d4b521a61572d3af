import request from 'supertest';
import { startTestApp, type TestApp } from '../support/http/test-app';

// docs/decisions.md "Authentication everywhere": the spec requires the key for Families A and C.
const operations: ReadonlyArray<[method: 'get' | 'post', path: string]> = [
  ['post', '/v1/travel'],
  ['post', '/v1/set-anchor'],
  ['post', '/v1/pause-time'],
  ['post', '/v1/resume-time'],
  ['post', '/v1/fast-forward'],
  ['post', '/v1/rewind'],
  ['get', '/v1/monitor-events'],
  ['get', '/v1/retrieve-item'],
  ['post', '/v1/return'],
  ['get', '/v1/check-paradox'],
  ['post', '/api/v1/travel'],
  ['post', '/api/v1/scan-events'],
  ['post', '/api/v1/manipulate-event'],
  ['get', '/api/v1/monitor-paradox'],
  ['get', '/api/v1/check-timeline'],
];

describe('API keys on Families A and C', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it.each(operations)(
    '%s %s without a key is 401 missing_api_key with WWW-Authenticate: Bearer',
    async (method, path) => {
      const response = await request(t.app)[method](path).send({});
      expect(response.status).toBe(401);
      expect(response.headers['www-authenticate']).toMatch(/^Bearer\b/);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.body).toMatchObject({ status: 401, code: 'missing_api_key' });
    },
  );

  it.each(operations)('%s %s with an unknown key is 401 invalid_api_key', async (method, path) => {
    const response = await request(t.app)
      [method](path)
      .set('Authorization', `Bearer tns_${'A'.repeat(43)}`)
      .send({});
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toMatch(/^Bearer\b.*error="invalid_token"/);
    expect(response.body.code).toBe('invalid_api_key');
  });
});
