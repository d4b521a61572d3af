import request from 'supertest';
import { startTestApp, type TestAccount, type TestApp } from '../support/http/test-app';

describe('timelines', () => {
  let t: TestApp;
  let me: TestAccount;
  beforeAll(async () => {
    t = await startTestApp();
  });
  beforeEach(async () => {
    me = await t.signUp();
  });
  afterAll(() => t.close());

  const create = (body: object) => request(t.app).post('/v1/timelines').set('Authorization', me.auth).send(body);

  it('creates an open timeline with a 12 minute window by default, or the window asked for', async () => {
    const plain = await create({ name: 'Rome', destination_time: '0044-03-15T10:00:00Z' });
    expect(plain.status).toBe(201);
    expect(plain.body).toMatchObject({
      status: 'open',
      window: '12 minutes',
      destination_time: '0044-03-15T10:00:00Z',
    });
    const closes = Date.parse(plain.body.window_closes_at) - Date.parse(plain.body.created_at);
    expect(closes).toBe(12 * 60_000);

    const wide = await create({ name: 'Rome again', destination_time: '0044-03-15T10:00:00Z', window: '90 minutes' });
    expect(wide.body.window).toBe('90 minutes');
  });

  it('normalises date-times to UTC whole seconds', async () => {
    const response = await create({ name: 'Offset', destination_time: '2000-01-01T02:00:00.750+02:00' });
    expect(response.body.destination_time).toBe('2000-01-01T00:00:00Z');
  });

  it('reads one timeline, and answers 404 for an unknown one', async () => {
    const created = await create({ name: 'Moon', destination_time: '1969-07-20T20:17:40Z' });
    const read = await request(t.app).get(`/timeline/${created.body.id}`).set('Authorization', me.auth);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);

    const primary = await request(t.app).get('/timeline/primary').set('Authorization', me.auth);
    expect(primary.body).toMatchObject({ id: 'primary', status: 'open', window: null, destination_time: null });

    const unknown = await request(t.app)
      .get('/timeline/tml_00000000000000000000000000000000')
      .set('Authorization', me.auth);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({
      code: 'timeline_not_found',
      timeline_id: 'tml_00000000000000000000000000000000',
    });
  });

  it('reads as expired once its window has passed', async () => {
    const created = await create({ name: 'Brief', destination_time: '1900-01-01T00:00:00Z', window: '1 minute' });
    t.clock.advanceMinutes(2);
    const read = await request(t.app).get(`/timeline/${created.body.id}`).set('Authorization', me.auth);
    expect(read.body.status).toBe('expired');
  });

  it('lists timelines oldest first, primary leading, in pages that chain through next_cursor', async () => {
    for (const name of ['one', 'two', 'three', 'four'])
      await create({ name, destination_time: '1990-01-01T00:00:00Z' });

    const names: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: Record<string, string | number> = cursor ? { limit: 2, cursor } : { limit: 2 };
      const page = await request(t.app).get('/timelines').query(query).set('Authorization', me.auth);
      expect(page.status).toBe(200);
      expect(page.body.timelines.length).toBeLessThanOrEqual(2);
      names.push(...page.body.timelines.map((timeline: { name: string }) => timeline.name));
      cursor = page.body.next_cursor;
      pages += 1;
    } while (cursor);
    expect(names).toEqual(['Primary timeline', 'one', 'two', 'three', 'four']);
    expect(pages).toBe(3);
  });
});
