import request from 'supertest';
import { startTestApp, type TestAccount, type TestApp } from '../support/http/test-app';

describe('POST /v1/travels rules', () => {
  let t: TestApp;
  let me: TestAccount;
  beforeAll(async () => {
    t = await startTestApp();
  });
  beforeEach(async () => {
    me = await t.signUp();
  });
  afterAll(() => t.close());

  const post = (path: string, body: object) => request(t.app).post(path).set('Authorization', me.auth).send(body);
  const timeline = async (window = '12 minutes') =>
    (await post('/v1/timelines', { name: 'Trip', destination_time: '1815-06-18T11:00:00Z', window })).body.id as string;
  const state = () =>
    Promise.all([
      t.prisma.traveller.findUniqueOrThrow({ where: { accountId: me.id } }),
      t.prisma.travel.count({ where: { accountId: me.id } }),
      t.prisma.item.findMany({ where: { accountId: me.id }, orderBy: { id: 'asc' } }),
      t.prisma.timeline.findMany({ where: { accountId: me.id }, orderBy: { id: 'asc' } }),
    ]);

  it('refuses items this account has not registered with 422 naming exactly those ids, changing nothing', async () => {
    const tml = await timeline();
    const mine = (await post('/v1/items', { description: 'Compass' })).body.id;
    const before = await state();
    const response = await post('/v1/travels', {
      destination: tml,
      items_transported: [mine, 'itm_missing', 'itm_missing', 'itm_other'],
    });
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ code: 'unknown_items', item_ids: ['itm_missing', 'itm_other'] });
    expect(await state()).toEqual(before);
  });

  it('refuses travel to a timeline whose window has passed with 409, and stores it as expired', async () => {
    const tml = await timeline('1 minutes');
    t.clock.advanceMinutes(2);
    const response = await post('/v1/travels', { destination: tml });
    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({ code: 'timeline_window_expired', timeline_id: tml });
    const [traveller, travels, , timelines] = await state();
    expect(traveller.timelineId).toBe('primary');
    expect(travels).toBe(0);
    expect(timelines.find((row) => row.id === tml)?.status).toBe('expired');
  });

  it('refuses a second timeline while a journey is in progress, and a completed timeline', async () => {
    const first = await timeline();
    const second = await timeline();
    expect((await post('/v1/travels', { destination: first })).status).toBe(201);
    const away = await post('/v1/travels', { destination: second });
    expect(away.status).toBe(409);
    expect(away.body).toMatchObject({ code: 'journey_in_progress', current_timeline_id: first });

    expect((await post('/v1/travels', { destination: 'primary' })).status).toBe(201);
    const again = await post('/v1/travels', { destination: first });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('timeline_closed');
  });

  it('brings a late traveller home but refuses to carry items out of an expired window', async () => {
    const tml = await timeline('5 minutes');
    await post('/v1/travels', { destination: tml });
    const relic = (await post('/v1/items', { description: 'Musket ball' })).body.id;
    t.clock.advanceMinutes(6);

    const withItems = await post('/v1/travels', { destination: 'primary', items_transported: [relic] });
    expect(withItems.status).toBe(409);
    expect(withItems.body.code).toBe('items_stranded');

    const home = await post('/v1/travels', { destination: 'primary' });
    expect(home.status).toBe(201);
    expect(home.body.timeline_id).toBe('primary');
    const read = await request(t.app).get(`/timeline/${tml}`).set('Authorization', me.auth);
    expect(read.body.status).toBe('expired');
  });

  it('does not carry an item home twice', async () => {
    const tml = await timeline();
    await post('/v1/travels', { destination: tml });
    const coin = (await post('/v1/items', { description: 'Coin' })).body.id;
    expect((await post('/v1/travels', { destination: 'primary', items_transported: [coin] })).status).toBe(201);
    const twice = await post('/v1/travels', { destination: 'primary', items_transported: [coin] });
    expect(twice.status).toBe(409);
    expect(twice.body).toMatchObject({ code: 'items_already_home', item_ids: [coin] });
  });

  it('answers 404 destination_not_found for an unknown destination', async () => {
    const response = await post('/v1/travels', { destination: 'anc_nowhere' });
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ code: 'destination_not_found', destination: 'anc_nowhere' });
  });

  it('sets the clock to the anchor timestamp when travelling to an anchor', async () => {
    const anchor = (await post('/v1/anchors', { timestamp: '2001-09-09T01:46:40Z', description: 'Billennium' })).body
      .id;
    const response = await post('/v1/travels', { destination: anchor });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ current_time: '2001-09-09T01:46:40Z', timeline_id: 'primary' });
    const traveller = await t.prisma.traveller.findUniqueOrThrow({ where: { accountId: me.id } });
    expect(traveller.clockReading.toISOString()).toBe('2001-09-09T01:46:40.000Z');
  });
});

describe('journey rules for items and anchors over HTTP', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('refuses items not found on the journey timeline with 409 items_not_on_journey, changing nothing', async () => {
    const me = await t.signUp();
    const post = (path: string, body: object) => request(t.app).post(path).set('Authorization', me.auth).send(body);
    const souvenir = (await post('/v1/items', { description: 'Found at home' })).body.id;
    const trip = (await post('/v1/timelines', { name: 'Trip', destination_time: '1900-01-01T00:00:00Z' })).body.id;
    expect((await post('/v1/travels', { destination: trip, items_transported: [souvenir] })).body.code).toBe(
      'items_not_on_journey',
    );
    await post('/v1/travels', { destination: trip });
    const before = await t.prisma.item.findMany({ where: { accountId: me.id } });

    const home = await post('/v1/travels', { destination: 'primary', items_transported: [souvenir] });

    expect(home.status).toBe(409);
    expect(home.body).toMatchObject({ code: 'items_not_on_journey', item_ids: [souvenir] });
    expect(await t.prisma.item.findMany({ where: { accountId: me.id } })).toEqual(before);
    expect((await t.prisma.traveller.findUniqueOrThrow({ where: { accountId: me.id } })).timelineId).toBe(trip);
  });

  it('refuses anchors and items on a journey timeline whose window has closed', async () => {
    const me = await t.signUp();
    const post = (path: string, body: object) => request(t.app).post(path).set('Authorization', me.auth).send(body);
    const trip = (
      await post('/v1/timelines', { name: 'Short', destination_time: '1900-01-01T00:00:00Z', window: '1 minutes' })
    ).body.id;
    await post('/v1/travels', { destination: trip });
    t.clock.advanceMinutes(2);

    const anchor = await post('/v1/anchors', { description: 'Too late' });
    const item = await post('/v1/items', { description: 'Too late' });

    expect([anchor.status, anchor.body.code]).toEqual([409, 'timeline_window_expired']);
    expect([item.status, item.body.code]).toEqual([409, 'timeline_window_expired']);
    expect(await t.prisma.anchor.count({ where: { accountId: me.id } })).toBe(0);
    expect(await t.prisma.item.count({ where: { accountId: me.id } })).toBe(0);
    // The refusal is recorded like a refused travel: the timeline is stored as expired.
    const stored = await t.prisma.timeline.findUniqueOrThrow({
      where: { accountId_id: { accountId: me.id, id: trip } },
    });
    expect(stored.status).toBe('expired');
  });
});

describe('the travel window closes at the window_closes_at answered', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const createdAt = new Date('2030-01-01T12:00:00.999Z');
  const shownClose = new Date('2030-01-01T12:12:00Z');
  const justAfter = new Date(shownClose.getTime() + 1);

  /** A new account with a 12-minute timeline created 999 ms into a second, and its answer. */
  async function aTimelineCreatedLateInASecond() {
    t.clock.freezeAt(createdAt);
    const me = await t.signUp();
    const post = (path: string, body: object) => request(t.app).post(path).set('Authorization', me.auth).send(body);
    const created = await post('/v1/timelines', { name: 'Waterloo', destination_time: '1815-06-18T11:00:00Z' });
    const read = () => request(t.app).get(`/timeline/${created.body.id}`).set('Authorization', me.auth);
    return { post, read, timeline: created.body };
  }

  it('shows created_at and window_closes_at cut to the second, one window apart', async () => {
    const { timeline } = await aTimelineCreatedLateInASecond();
    expect(timeline).toMatchObject({ created_at: '2030-01-01T12:00:00Z', window_closes_at: '2030-01-01T12:12:00Z' });
  });

  it('lets a travel there (Family B) arrive at the instant shown, and refuses it 1 ms later', async () => {
    const onTime = await aTimelineCreatedLateInASecond();
    t.clock.freezeAt(shownClose);
    expect((await onTime.post('/v1/travels', { destination: onTime.timeline.id })).status).toBe(201);
    expect((await onTime.read()).body.status).toBe('active');

    const late = await aTimelineCreatedLateInASecond();
    t.clock.freezeAt(justAfter);
    const refused = await late.post('/v1/travels', { destination: late.timeline.id });
    expect([refused.status, refused.body.code]).toEqual([409, 'timeline_window_expired']);
    expect(refused.body.detail).toContain('closed at 2030-01-01T12:12:00Z');
    expect((await late.read()).body.status).toBe('expired');
  });

  it.each(['/v1/travel', '/api/v1/travel'])(
    'lets %s move within the journey at the instant shown, and refuses it 1 ms later',
    async (path) => {
      const move = { destination_time: '1815-06-18T12:00:00Z', location: 'Hougoumont' };
      const onTime = await aTimelineCreatedLateInASecond();
      await onTime.post('/v1/travels', { destination: onTime.timeline.id }).expect(201);
      t.clock.freezeAt(shownClose);
      expect((await onTime.post(path, move)).status).toBe(200);

      const late = await aTimelineCreatedLateInASecond();
      await late.post('/v1/travels', { destination: late.timeline.id }).expect(201);
      t.clock.freezeAt(justAfter);
      const refused = await late.post(path, move);
      expect([refused.status, refused.body.code]).toEqual([409, 'timeline_window_expired']);
    },
  );
});
