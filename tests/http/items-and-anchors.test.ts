import request from 'supertest';
import { startTestApp, type TestAccount, type TestApp } from '../support/http/test-app';

describe('anchors and items', () => {
  let t: TestApp;
  let me: TestAccount;
  beforeAll(async () => {
    t = await startTestApp();
    me = await t.signUp();
  });
  afterAll(() => t.close());

  const post = (path: string, body: object) => request(t.app).post(path).set('Authorization', me.auth).send(body);

  it('sets an anchor at the given timestamp, or at the current clock time when omitted', async () => {
    const given = await post('/v1/anchors', { timestamp: '1999-12-31T23:59:59Z', description: 'Millennium eve' });
    expect(given.status).toBe(201);
    expect(given.body).toMatchObject({
      timestamp: '1999-12-31T23:59:59Z',
      description: 'Millennium eve',
      timeline_id: 'primary',
    });

    const before = Date.now();
    const now = await post('/v1/anchors', { description: 'Right now' });
    expect(Math.abs(Date.parse(now.body.timestamp) - before)).toBeLessThan(5_000);
  });

  it('registers an item where the traveller is, at the given or current location', async () => {
    const here = await post('/v1/items', { description: 'Pocket watch' });
    expect(here.status).toBe(201);
    expect(here.body).toMatchObject({
      item_description: 'Pocket watch',
      location: 'home',
      timeline_id: 'primary',
      carried_home_by: null,
    });

    const there = await post('/v1/items', { description: 'Fossil', location: 'Lyme Regis' });
    expect(there.body.location).toBe('Lyme Regis');
    expect(await t.prisma.item.count({ where: { accountId: me.id } })).toBe(2);
  });
});
