import request from 'supertest';
import { ALL_TIME, asAccount } from '../support/http/as-account';
import { startTestApp, type TestApp } from '../support/http/test-app';

// Inputs that look harmless and must still be refused cleanly or have no side effect.
describe('edge cases of safety', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('answers HEAD of GET /v1/retrieve-item with 405, registering nothing', async () => {
    const me = await t.signUp();
    const response = await request(t.app)
      .head('/v1/retrieve-item')
      .query({ item_description: 'Coin', location: 'Rome', time: '0044-03-15T10:00:00Z' })
      .set('Authorization', me.auth);
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe('GET');
    expect(await t.prisma.item.count({ where: { accountId: me.id } })).toBe(0);

    const safe = await request(t.app).head('/timelines').set('Authorization', me.auth);
    expect(safe.status).toBe(200);
  });

  it.each([
    ['year 0', -62135596800001],
    ['year 275760', 8.64e15],
  ])('refuses a crafted cursor at %s with 400 naming cursor', async (_case, ms) => {
    const me = asAccount(t, await t.signUp());
    const cursor = Buffer.from(`${ms}:x`).toString('base64url');
    const timelines = await me.get('/timelines', { cursor });
    const scan = await me.post('/api/v1/scan-events', { location: 'home', time_range: ALL_TIME, cursor });
    for (const response of [timelines, scan]) {
      expect(response.status).toBe(400);
      expect(response.body.errors).toEqual([expect.objectContaining({ field: 'cursor' })]);
    }
  });

  it('finds the same item again whatever the letter case of its description and place', async () => {
    const me = asAccount(t, await t.signUp());
    const first = await me.get('/v1/retrieve-item', {
      item_description: 'Gem',
      location: 'Quarry',
      time: '1900-01-01T00:00:00Z',
    });
    const again = await me.get('/v1/retrieve-item', {
      item_description: 'gem',
      location: 'QUARRY',
      time: '1900-01-01T00:00:00Z',
    });
    expect(again.body).toMatchObject({ item_id: first.body.item_id, status: 'Item already retrieved.' });
  });

  it('treats a repeated query parameter as a list that a single body value does not match', async () => {
    const me = asAccount(t, await t.signUp());
    const response = await request(t.app)
      .get('/v1/check-paradox?timeline_id=primary&timeline_id=x')
      .set('Authorization', me.account.auth)
      .send({ timeline_id: 'primary,x' });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([expect.objectContaining({ field: 'timeline_id' })]);
  });

  it('has check-timeline agree with check-paradox when another event of the timeline is displaced', async () => {
    const me = asAccount(t, await t.signUp());
    const item = await me.get('/v1/retrieve-item', {
      item_description: 'Rock',
      location: 'Crater',
      time: '1969-07-20T21:00:00Z',
    });
    await me.post('/v1/set-anchor', { timestamp: '1969-07-20T20:00:00Z', description: 'Landing' });
    const scan = await me.post('/api/v1/scan-events', { location: 'Crater', time_range: ALL_TIME });
    const retrieval = scan.body.events.find((event: { kind: string }) => event.kind === 'item_retrieved');
    await me.post('/api/v1/manipulate-event', {
      event_id: retrieval.event_id,
      action: 'Delay',
      time: '1969-07-20T23:00:00Z',
    });

    const paradox = await me.get('/v1/check-paradox', { timeline_id: 'primary' });
    const focused = await me.get('/api/v1/check-timeline', {
      timeline_id: 'primary',
      significant_event: 'Anchor set: Landing',
    });
    expect(paradox.body.timeline_stability).toBe('Unstable');
    expect(focused.status).toBe(200);
    expect(focused.body).toMatchObject({ timeline_stability: 'Unstable', is_stable: false });
    expect(focused.body.reasons).toEqual([
      expect.objectContaining({ code: 'event_displaced', dependent_id: item.body.item_id }),
    ]);
  });
});
