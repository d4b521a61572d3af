import { ALL_TIME, asAccount, HOUR, MINUTE, plusMs, type AccountClient } from '../support/http/as-account';
import { startTestApp, type TestApp } from '../support/http/test-app';

// docs/decisions.md: the three families share one state per account. One journey, on one account,
// moving between A, B and C; each step checks that the others see what it did.
describe('one state shared by Families A, B and C', () => {
  let t: TestApp;
  let a: AccountClient;
  beforeAll(async () => {
    t = await startTestApp();
    a = asAccount(t, await t.signUp());
  });
  afterAll(() => t.close());

  // Steps build on each other, in order.
  let anchorId: string;
  let timelineId: string;
  let itemId: string;
  let retrievalEventId: string;

  it('A: sets an anchor at home', async () => {
    const anchor = await a.post('/v1/set-anchor', { timestamp: '2030-01-01T00:00:00Z', description: 'Home base' });
    expect(anchor.status).toBe(200);
    anchorId = anchor.body.anchor_id;
    expect(anchor.body.timeline_id).toBe('primary');
  });

  it('B: creates a timeline and travels there', async () => {
    const timeline = await a.post('/v1/timelines', { name: 'Rome', destination_time: '0044-03-15T08:00:00Z' });
    timelineId = timeline.body.id;
    const travel = await a.post('/v1/travels', { destination: timelineId });
    expect(travel.status).toBe(201);
    expect(travel.body).toMatchObject({
      timeline_id: timelineId,
      current_time: '0044-03-15T08:00:00Z',
      location: 'Rome',
    });
  });

  it('A: pauses at the time B arrived at, and fast-forwards from there', async () => {
    // The clock ran for the few milliseconds between the two requests.
    const paused = await a.post('/v1/pause-time');
    expect(Date.parse(paused.body.paused_at) - Date.parse('0044-03-15T08:00:00Z')).toBeGreaterThanOrEqual(0);
    expect(Date.parse(paused.body.paused_at) - Date.parse('0044-03-15T08:00:00Z')).toBeLessThan(5_000);
    const forward = await a.post('/v1/fast-forward', { duration: '2h' });
    expect(forward.body.new_time).toBe(plusMs(paused.body.paused_at, 2 * HOUR));
  });

  it('C: travels within the timeline, and A reports the same clock and place', async () => {
    const travel = await a.post('/api/v1/travel', {
      destination_time: '0044-03-15T11:00:00Z',
      location: 'Theatre of Pompey',
    });
    expect(travel.body).toMatchObject({
      current_time: '0044-03-15T11:00:00Z',
      timeline_id: timelineId,
      location: 'Theatre of Pompey',
    });

    const forward = await a.post('/v1/fast-forward', { duration: '1m' });
    expect(forward.body.new_time).toBe('0044-03-15T11:01:00Z');
    const rewound = await a.post('/v1/rewind', { duration: '1m' });
    expect(rewound.body.new_time).toBe('0044-03-15T11:00:00Z');
    const traveller = await a.traveller();
    expect(traveller).toMatchObject({ timelineId, location: 'Theatre of Pompey', clockPaused: true });
  });

  it('A: retrieves an item on the timeline; asking twice answers the same item', async () => {
    const query = { item_description: 'Senator toga', location: 'Theatre of Pompey', time: '0044-03-15T11:00:00Z' };
    const first = await a.get('/v1/retrieve-item', query);
    const second = await a.get('/v1/retrieve-item', query);
    itemId = first.body.item_id;
    expect(second.body.item_id).toBe(itemId);
    const stored = await t.prisma.item.findFirstOrThrow({ where: { accountId: a.account.id, id: itemId } });
    expect(stored.timelineId).toBe(timelineId);
  });

  it('A and C: see the same events on the timeline the traveller is on', async () => {
    const monitored = await a.get('/v1/monitor-events', { location: 'Theatre of Pompey', time_range: ALL_TIME });
    const scanned = await a.post('/api/v1/scan-events', { location: 'theatre of pompey', time_range: ALL_TIME });
    expect(monitored.body.timeline_id).toBe(timelineId);
    expect(monitored.body.events).toEqual(scanned.body.events);
    const events: Array<{ kind: string; event_id: string }> = scanned.body.events;
    // Both happen at 11:00, so their order is by id: compare the kinds as a set.
    expect(events.map((event) => event.kind).sort()).toEqual(['arrival', 'item_retrieved']);
    retrievalEventId = events.find((event) => event.kind === 'item_retrieved')?.event_id ?? '';
    expect(retrievalEventId).toMatch(/^evt_/);
  });

  async function verdicts(): Promise<string[]> {
    const b = await a.post('/v1/paradox-checks', { timeline_id: timelineId, proposed_changes: [] });
    const checked = await a.get('/v1/check-paradox', { timeline_id: timelineId });
    const monitored = await a.get('/api/v1/monitor-paradox', { timeline_id: timelineId, time_range: ALL_TIME });
    const timeline = await a.get('/api/v1/check-timeline', {
      timeline_id: timelineId,
      significant_event: retrievalEventId,
    });
    for (const response of [b, checked, monitored, timeline]) expect(response.status).toBe(200);
    return [
      b.body.is_stable ? 'Stable' : 'Unstable',
      checked.body.timeline_stability,
      monitored.body.timeline_stability,
      timeline.body.timeline_stability,
    ];
  }

  it('A, B and C: give the same verdict before and after C moves the retrieval, and after moving it back', async () => {
    expect(await verdicts()).toEqual(['Stable', 'Stable', 'Stable', 'Stable']);

    const moved = await a.post('/api/v1/manipulate-event', {
      event_id: retrievalEventId,
      action: 'Leave the toga behind',
      time: '0044-03-16T11:00:00Z',
    });
    expect(moved.status).toBe(200);
    expect(await verdicts()).toEqual(['Unstable', 'Unstable', 'Unstable', 'Unstable']);

    await a.post('/api/v1/manipulate-event', {
      event_id: retrievalEventId,
      action: 'Take it after all',
      time: '0044-03-15T11:00:00Z',
    });
    expect(await verdicts()).toEqual(['Stable', 'Stable', 'Stable', 'Stable']);
  });

  it('B: carries the item found through A home, to the anchor set through A', async () => {
    const home = await a.post('/v1/travels', { destination: anchorId, items_transported: [itemId] });
    expect(home.status).toBe(201);
    expect(home.body).toMatchObject({
      destination: anchorId,
      timeline_id: 'primary',
      current_time: '2030-01-01T00:00:00Z',
      items_transported: [itemId],
    });

    const item = await t.prisma.item.findFirstOrThrow({ where: { accountId: a.account.id, id: itemId } });
    expect(item.carriedHomeBy).toBe(home.body.id);
    const timeline = await a.get(`/timeline/${timelineId}`);
    expect(timeline.body.status).toBe('completed');
  });

  it('A: returns to the same anchor later', async () => {
    await a.post('/v1/fast-forward', { duration: '3d' });
    const back = await a.post('/v1/return', { anchor_id: anchorId });
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ current_time: '2030-01-01T00:00:00Z', timeline_id: 'primary', location: 'home' });
  });

  it('B: travels to an anchor set through A, and A pauses and fast-forwards from there', async () => {
    const b = asAccount(t, await t.signUp());
    const anchor = await b.post('/v1/set-anchor', { timestamp: '1999-12-31T23:59:00Z', description: 'Party' });
    const travel = await b.post('/v1/travels', { destination: anchor.body.anchor_id });
    expect(travel.status).toBe(201);
    expect(travel.body.current_time).toBe('1999-12-31T23:59:00Z');

    const paused = await b.post('/v1/pause-time');
    expect(Date.parse(paused.body.paused_at) - Date.parse('1999-12-31T23:59:00Z')).toBeGreaterThanOrEqual(0);
    expect(Date.parse(paused.body.paused_at) - Date.parse('1999-12-31T23:59:00Z')).toBeLessThan(5_000);
    const forward = await b.post('/v1/fast-forward', { duration: '1m' });
    expect(forward.body.new_time).toBe(plusMs(paused.body.paused_at, MINUTE));
  });

  it('A: anchors through /v1/set-anchor are the anchors of Family B, under the same id', async () => {
    const b = asAccount(t, await t.signUp());
    const viaA = await b.post('/v1/set-anchor', { timestamp: '1969-07-20T20:17:40Z', description: 'Landing' });
    const viaB = await b.post('/v1/anchors', { timestamp: '1969-07-21T02:56:15Z', description: 'First step' });
    expect(viaB.body.id).toMatch(/^anc_/);
    expect((await b.post('/v1/return', { anchor_id: viaB.body.id })).body.current_time).toBe('1969-07-21T02:56:15Z');
    expect((await b.post('/v1/travels', { destination: viaA.body.anchor_id })).body.current_time).toBe(
      '1969-07-20T20:17:40Z',
    );
    expect(await t.prisma.anchor.count({ where: { accountId: b.account.id } })).toBe(2);
  });
});
