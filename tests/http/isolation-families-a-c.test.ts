import { ALL_TIME, asAccount, type AccountClient } from '../support/http/as-account';
import { startTestApp, type TestApp } from '../support/http/test-app';

// Another account's identifier answers exactly like an unknown one, in Families A and C too.
describe('isolation between accounts in Families A and C', () => {
  let t: TestApp;
  let alice: AccountClient;
  let mallory: AccountClient;
  let aliceEvent: string;
  let aliceAnchor: string;
  let aliceTimeline: string;
  const unknown = { event: 'evt_ffffffffffffffffffffffffffffffff', anchor: 'anc_ffffffffffffffffffffffffffffffff', timeline: 'tml_ffffffffffffffffffffffffffffffff' };

  beforeAll(async () => {
    t = await startTestApp();
    alice = asAccount(t, await t.signUp());
    mallory = asAccount(t, await t.signUp());
    await alice.post('/v1/travel', { destination_time: '1605-11-05T00:00:00Z', location: 'Westminster' });
    aliceEvent = (await alice.post('/api/v1/scan-events', { location: 'Westminster', time_range: ALL_TIME })).body.events[0].event_id;
    aliceAnchor = (await alice.post('/v1/set-anchor', { description: 'Cellar' })).body.anchor_id;
    aliceTimeline = (await alice.post('/v1/timelines', { name: 'Plot', destination_time: '1605-11-04T00:00:00Z' })).body.id;
  });
  afterAll(() => t.close());

  it("refuses to manipulate Alice's event: 404 event_not_found, as for an unknown id", async () => {
    const theirs = await mallory.post('/api/v1/manipulate-event', { event_id: aliceEvent, action: 'Foil the plot', time: '1605-11-06T00:00:00Z' });
    const none = await mallory.post('/api/v1/manipulate-event', { event_id: unknown.event, action: 'Foil the plot', time: '1605-11-06T00:00:00Z' });
    expect(theirs.status).toBe(404);
    expect(theirs.body).toMatchObject({ code: 'event_not_found', event_id: aliceEvent });
    expect(none.status).toBe(theirs.status);
    expect(none.body.code).toBe(theirs.body.code);

    const stored = await t.prisma.event.findFirstOrThrow({ where: { accountId: alice.account.id, id: aliceEvent } });
    expect(stored.revision).toBe(0);
    expect(await t.prisma.eventManipulation.count()).toBe(0);
  });

  it("refuses to return to Alice's anchor: 404 anchor_not_found, and Mallory does not move", async () => {
    const before = await mallory.traveller();
    const theirs = await mallory.post('/v1/return', { anchor_id: aliceAnchor });
    const none = await mallory.post('/v1/return', { anchor_id: unknown.anchor });
    expect(theirs.status).toBe(404);
    expect(theirs.body).toMatchObject({ code: 'anchor_not_found', anchor_id: aliceAnchor });
    expect(none.body.code).toBe(theirs.body.code);
    expect(await mallory.traveller()).toEqual(before);
  });

  it.each<[string, (timelineId: string) => [string, Record<string, string>]]>([
    ['GET /v1/check-paradox', (id) => ['/v1/check-paradox', { timeline_id: id }]],
    ['GET /api/v1/monitor-paradox', (id) => ['/api/v1/monitor-paradox', { timeline_id: id, time_range: ALL_TIME }]],
    ['GET /api/v1/check-timeline', (id) => ['/api/v1/check-timeline', { timeline_id: id, significant_event: 'Traveller arrives at Westminster' }]],
    ['GET /v1/monitor-events', (id) => ['/v1/monitor-events', { timeline_id: id, location: 'Westminster', time_range: ALL_TIME }]],
  ])("%s refuses Alice's timeline with 404 timeline_not_found, as for an unknown id", async (_name, request) => {
    const [path, theirsQuery] = request(aliceTimeline);
    const [, unknownQuery] = request(unknown.timeline);
    const theirs = await mallory.get(path, theirsQuery);
    const none = await mallory.get(path, unknownQuery);
    expect(theirs.status).toBe(404);
    expect(theirs.body).toMatchObject({ code: 'timeline_not_found', timeline_id: aliceTimeline });
    expect(none.status).toBe(404);
    expect(none.body.code).toBe('timeline_not_found');
  });

  it("POST /api/v1/scan-events refuses Alice's timeline with 404 timeline_not_found", async () => {
    const response = await mallory.post('/api/v1/scan-events', { timeline_id: aliceTimeline, location: 'Westminster', time_range: ALL_TIME });
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('timeline_not_found');
  });

  it("does not show Alice's events on Mallory's own primary timeline", async () => {
    const scanned = await mallory.post('/api/v1/scan-events', { location: 'Westminster', time_range: ALL_TIME });
    expect(scanned.body.events).toEqual([]);
    const checked = await mallory.get('/api/v1/check-timeline', { timeline_id: 'primary', significant_event: aliceEvent });
    expect(checked.status).toBe(422);
    expect(checked.body.code).toBe('unknown_event');
  });
});
