import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { STATUS_BY_CODE } from '../../src/interfaces/http/error-statuses';
import { startTestApp, type TestAccount, type TestApp } from '../support/http/test-app';

function expectProblem(response: request.Response, status: number, code: string): void {
  expect(response.status).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json; charset=utf-8$/);
  expect(response.body).toEqual(
    expect.objectContaining({
      type: `/problems/${code}`,
      title: expect.any(String),
      status,
      detail: expect.any(String),
      code,
    }),
  );
  expect(JSON.stringify(response.body)).not.toMatch(/\bat .+\.(ts|js):\d+/); // no stack trace
}

describe('errors are RFC 9457 problems with stable codes', () => {
  let t: TestApp;
  let me: TestAccount;
  beforeAll(async () => {
    t = await startTestApp();
    me = await t.signUp();
  });
  afterAll(() => t.close());

  const post = (path: string) => request(t.app).post(path).set('Authorization', me.auth);

  it('answers malformed JSON with 400 malformed_json', async () => {
    const response = await post('/v1/anchors').set('Content-Type', 'application/json').send('{"description": ');
    expectProblem(response, 400, 'malformed_json');
  });

  it('answers a body that is not JSON with 415', async () => {
    const response = await post('/v1/anchors').set('Content-Type', 'text/plain').send('description=x');
    expectProblem(response, 415, 'unsupported_media_type');
  });

  it('answers an oversized body with 413', async () => {
    const response = await post('/v1/anchors').send({ description: 'x'.repeat(70_000) });
    expectProblem(response, 413, 'payload_too_large');
  });

  it.each([
    ['a JSON array', '/v1/anchors', [1, 2], '(body)'],
    ['a JSON string', '/v1/anchors', '"text"', '(body)'],
    ['a missing field', '/v1/timelines', { destination_time: '2020-01-01T00:00:00Z' }, 'name'],
    ['a wrong type', '/v1/timelines', { name: 7, destination_time: '2020-01-01T00:00:00Z' }, 'name'],
    [
      'an unknown field',
      '/v1/timelines',
      { name: 'x', destination_time: '2020-01-01T00:00:00Z', colour: 'red' },
      'colour',
    ],
    ['an unparseable date-time', '/v1/timelines', { name: 'x', destination_time: 'yesterday' }, 'destination_time'],
    [
      'an impossible date',
      '/v1/timelines',
      { name: 'x', destination_time: '2023-02-29T00:00:00Z' },
      'destination_time',
    ],
    ['a year out of range', '/v1/anchors', { timestamp: '0000-12-31T00:00:00Z', description: 'x' }, 'timestamp'],
    [
      'a bad window',
      '/v1/timelines',
      { name: 'x', destination_time: '2020-01-01T00:00:00Z', window: '12 hours' },
      'window',
    ],
    ['a non-string id', '/v1/travels', { destination: 5 }, 'destination'],
    [
      'a non-string item id',
      '/v1/travels',
      { destination: 'primary', items_transported: ['itm_x', 3] },
      'items_transported',
    ],
    ['null where a string belongs', '/v1/items', { description: null }, 'description'],
    ['an empty description', '/v1/items', { description: '' }, 'description'],
    [
      'a mixed proposed change',
      '/v1/paradox-checks',
      { timeline_id: 'primary', proposed_changes: [{ event: 'e', item_id: 'itm_x' }] },
      'proposed_changes[0].item_id',
    ],
    [
      'a proposed change without time',
      '/v1/paradox-checks',
      { timeline_id: 'primary', proposed_changes: [{ event: 'e' }] },
      'proposed_changes[0].time',
    ],
    [
      'a proposed change that is not an object',
      '/v1/paradox-checks',
      { timeline_id: 'primary', proposed_changes: ['e'] },
      'proposed_changes[0]',
    ],
  ])('answers %s with 400 validation_failed naming the field', async (_case, path, body, field) => {
    const response = await post(path)
      .set('Content-Type', 'application/json')
      .send(typeof body === 'string' ? body : JSON.stringify(body));
    expectProblem(response, 400, 'validation_failed');
    expect(response.body.errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ field, message: expect.any(String) })]),
    );
  });

  it('refuses a bad query parameter of GET /timelines', async () => {
    const response = await request(t.app).get('/timelines?limit=0').set('Authorization', me.auth);
    expectProblem(response, 400, 'validation_failed');
    expect(response.body.errors[0].field).toBe('limit');
    const cursor = await request(t.app).get('/timelines?cursor=garbage').set('Authorization', me.auth);
    expectProblem(cursor, 400, 'validation_failed');
    expect(cursor.body.errors[0].field).toBe('cursor');
  });

  it('answers an unknown path with 404 route_not_found and a wrong method with 405 and Allow', async () => {
    expectProblem(await request(t.app).get('/v1/nowhere').set('Authorization', me.auth), 404, 'route_not_found');
    const wrongMethod = await request(t.app).delete('/v1/anchors').set('Authorization', me.auth);
    expectProblem(wrongMethod, 405, 'method_not_allowed');
    expect(wrongMethod.headers.allow).toBe('POST');
  });

  it('points GET /v1/timelines at the listing, GET /timelines', async () => {
    const response = await request(t.app).get('/v1/timelines').set('Authorization', me.auth);
    expectProblem(response, 405, 'method_not_allowed');
    expect(response.headers.allow).toBe('POST');
    expect(response.body.detail).toContain('GET /timelines');
    expect(response.headers.link).toBe('</timelines>; rel="alternate"');
    const elsewhere = await request(t.app).delete('/v1/timelines').set('Authorization', me.auth);
    expect(elsewhere.body.detail).not.toContain('/timelines is');
    expect(elsewhere.headers.link).toBeUndefined();
  });

  it('changes nothing when it refuses', async () => {
    const before = await t.prisma.timeline.count({ where: { accountId: me.id } });
    await post('/v1/timelines').send({ name: 'x', destination_time: 'soon' });
    expect(await t.prisma.timeline.count({ where: { accountId: me.id } })).toBe(before);
  });

  it('documents every code it can answer in docs/errors.md, with the same status', () => {
    const doc = readFileSync(join(__dirname, '../../docs/errors.md'), 'utf8');
    const documented = new Map(
      [...doc.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)].map(([, code, status]) => [code, Number(status)]),
    );
    expect(Object.fromEntries(documented)).toEqual(STATUS_BY_CODE);
  });

  it('maps every domain error code to a status', () => {
    const source = readFileSync(join(__dirname, '../../src/core/domain/errors.ts'), 'utf8');
    const codes = [...source.matchAll(/readonly code = '([a-z_]+)'/g)].map(([, code]) => code);
    expect(codes.length).toBeGreaterThan(5);
    expect(codes.filter((code) => !(code in STATUS_BY_CODE))).toEqual([]);
  });
});
