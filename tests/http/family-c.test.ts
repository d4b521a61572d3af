import { ALL_TIME, asAccount, fieldsAtFault, SPEC_DATE_TIME, type AccountClient } from '../support/http/as-account';
import { startTestApp, type TestApp } from '../support/http/test-app';

// Family C: scenario operations under /api/v1; their answers follow src/interfaces/http/routes/family-c-routes.ts.
describe('Family C: scenario operations', () => {
  let t: TestApp;
  let a: AccountClient;
  let retrievalId: string;
  const forumRange = '0044-03-15T00:00:00Z/0044-03-16T00:00:00Z';

  beforeAll(async () => {
    t = await startTestApp();
    a = asAccount(t, await t.signUp());
    await a.post('/api/v1/travel', { destination_time: '0044-03-15T10:00:00Z', location: 'Forum' });
    await a.get('/v1/retrieve-item', { item_description: 'Dagger', location: 'Forum', time: '0044-03-15T11:00:00Z' });
    const scan = await a.post('/api/v1/scan-events', { location: 'Forum', time_range: forumRange });
    retrievalId = scan.body.events.find((event: { kind: string }) => event.kind === 'item_retrieved').event_id;
  });
  afterAll(() => t.close());

  describe('POST /api/v1/travel', () => {
    it('moves the traveller and answers the arrival', async () => {
      const b = asAccount(t, await t.signUp());
      const response = await b.post('/api/v1/travel', {
        destination_time: '1066-10-14T09:00:00Z',
        location: 'Hastings',
      });

      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        status: expect.stringContaining('Hastings'),
        current_time: '1066-10-14T09:00:00Z',
        location: 'Hastings',
        timeline_id: 'primary',
        travel_id: expect.stringMatching(/^trv_[0-9a-f]{32}$/),
      });
      expect((await b.traveller()).location).toBe('Hastings');
    });

    it('refuses a travel without destination_time with 400 naming it', async () => {
      const response = await a.post('/api/v1/travel', { location: 'Hastings' });
      expect(response.status).toBe(400);
      expect(fieldsAtFault(response.body)).toEqual(['destination_time']);
    });
  });

  describe('POST /api/v1/scan-events', () => {
    it('answers the events at the location in the range, with the query echoed', async () => {
      const response = await a.post('/api/v1/scan-events', { location: 'forum', time_range: forumRange });

      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        location: 'forum',
        time_range: forumRange,
        timeline_id: 'primary',
        next_cursor: null,
        events: [
          {
            event_id: expect.stringMatching(/^evt_[0-9a-f]{32}$/),
            time: '0044-03-15T10:00:00Z',
            description: 'Traveller arrives at Forum',
            location: 'Forum',
            timeline_id: 'primary',
            kind: 'arrival',
            original_time: '0044-03-15T10:00:00Z',
            manipulated: false,
          },
          {
            event_id: retrievalId,
            time: '0044-03-15T11:00:00Z',
            description: 'Item retrieved: Dagger',
            location: 'Forum',
            timeline_id: 'primary',
            kind: 'item_retrieved',
            original_time: '0044-03-15T11:00:00Z',
            manipulated: false,
          },
        ],
      });
    });

    it.each([
      ['missing', undefined],
      ['not an interval', 'last week'],
      ['start after end', '0044-03-16T00:00:00Z/0044-03-15T00:00:00Z'],
      ['an open end', '0044-03-15T00:00:00Z/'],
    ])('refuses a time_range that is %s with 400 naming time_range', async (_case, timeRange) => {
      const response = await a.post('/api/v1/scan-events', { location: 'Forum', time_range: timeRange });
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('validation_failed');
      expect(fieldsAtFault(response.body)).toEqual(['time_range']);
    });

    it('accepts a range of a single instant (start equal to end)', async () => {
      const response = await a.post('/api/v1/scan-events', {
        location: 'Forum',
        time_range: '0044-03-15T11:00:00Z/0044-03-15T11:00:00Z',
      });
      expect(response.status).toBe(200);
      expect(response.body.events.map((event: { event_id: string }) => event.event_id)).toEqual([retrievalId]);
    });

    it('refuses an unknown timeline_id with 404 timeline_not_found', async () => {
      const response = await a.post('/api/v1/scan-events', {
        location: 'Forum',
        time_range: forumRange,
        timeline_id: 'tml_ffffffffffffffffffffffffffffffff',
      });
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('timeline_not_found');
    });

    it('refuses a cursor it did not hand out with 400 naming cursor', async () => {
      const response = await a.post('/api/v1/scan-events', {
        location: 'Forum',
        time_range: forumRange,
        cursor: 'not-a-cursor',
      });
      expect(response.status).toBe(400);
      expect(fieldsAtFault(response.body)).toEqual(['cursor']);
    });
  });

  describe('POST /api/v1/manipulate-event', () => {
    it('moves an event, keeping its original time and its history', async () => {
      const b = asAccount(t, await t.signUp());
      await b.post('/api/v1/travel', { destination_time: '1815-06-18T11:00:00Z', location: 'Waterloo' });
      const [arrival] = (await b.post('/api/v1/scan-events', { location: 'Waterloo', time_range: ALL_TIME })).body
        .events;

      const response = await b.post('/api/v1/manipulate-event', {
        event_id: arrival.event_id,
        action: 'Rain delays the start',
        time: '1815-06-18T13:00:00Z',
      });

      expect(response.status).toBe(200);
      expect(typeof response.body.status).toBe('string');
      expect(response.body.event).toEqual({
        ...arrival,
        time: '1815-06-18T13:00:00Z',
        original_time: '1815-06-18T11:00:00Z',
        manipulated: true,
      });
      const manipulation = {
        id: expect.stringMatching(/^man_[0-9a-f]{32}$/),
        event_id: arrival.event_id,
        action: 'Rain delays the start',
        from_time: '1815-06-18T11:00:00Z',
        to_time: '1815-06-18T13:00:00Z',
        applied_at: expect.stringMatching(SPEC_DATE_TIME),
        revision: 1,
      };
      expect(response.body.manipulation).toEqual(manipulation);
      expect(response.body.history).toEqual([manipulation]);
      expect(response.body.history_count).toBe(1);
    });

    it('refuses an unknown event with 404 event_not_found naming it', async () => {
      const response = await a.post('/api/v1/manipulate-event', {
        event_id: 'evt_ffffffffffffffffffffffffffffffff',
        action: 'Erase',
        time: '2000-01-01T00:00:00Z',
      });
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({
        code: 'event_not_found',
        event_id: 'evt_ffffffffffffffffffffffffffffffff',
      });
    });

    it.each<[string, object, string[]]>([
      ['no action', { time: '2000-01-01T00:00:00Z' }, ['action']],
      ['an empty action', { action: '', time: '2000-01-01T00:00:00Z' }, ['action']],
      ['no time', { action: 'Delay' }, ['time']],
      ['a time beyond year 9999', { action: 'Delay', time: '10000-01-01T00:00:00Z' }, ['time']],
    ])('refuses %s with 400 naming the field, and leaves the event alone', async (_case, body, fields) => {
      const response = await a.post('/api/v1/manipulate-event', { event_id: retrievalId, ...body });
      expect(response.status).toBe(400);
      expect(fieldsAtFault(response.body)).toEqual(fields);
      const stored = await t.prisma.event.findFirstOrThrow({ where: { id: retrievalId } });
      expect(stored.revision).toBe(0);
    });
  });

  describe('GET /api/v1/monitor-paradox', () => {
    it("answers the verdict, the range, and the range's events as monitor-events lists them", async () => {
      const monitored = await a.get('/v1/monitor-events', { location: 'Forum', time_range: ALL_TIME });
      expect(monitored.body.events).toHaveLength(2);

      const response = await a.get('/api/v1/monitor-paradox', { timeline_id: 'primary', time_range: ALL_TIME });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        timeline_id: 'primary',
        is_stable: true,
        timeline_stability: 'Stable',
        reason_count: 0,
        reason_count_capped: false,
        reasons: [],
        time_range: ALL_TIME,
        manipulated_count: 0,
        manipulated_count_capped: false,
        manipulated_event_ids: [],
        events_monitored: monitored.body.events,
        next_cursor: null,
      });
    });

    it('monitors the range at every place, marks the manipulated events, and pages', async () => {
      const b = asAccount(t, await t.signUp());
      for (const [time, location] of [
        ['09:00', 'Ligny'],
        ['11:00', 'Hougoumont'],
        ['20:00', 'Wavre'],
      ]) {
        await b.post('/api/v1/travel', { destination_time: `1815-06-18T${time}:00Z`, location });
      }
      const [ligny, hougoumont, wavre] = (
        await b.post('/api/v1/scan-events', { location: 'Ligny', time_range: ALL_TIME })
      ).body.events
        .concat((await b.post('/api/v1/scan-events', { location: 'Hougoumont', time_range: ALL_TIME })).body.events)
        .concat((await b.post('/api/v1/scan-events', { location: 'Wavre', time_range: ALL_TIME })).body.events);
      // Rain delays Hougoumont by two hours: the arrival its travel depends on is displaced.
      const moved = (
        await b.post('/api/v1/manipulate-event', {
          event_id: hougoumont.event_id,
          action: 'Rain',
          time: '1815-06-18T13:00:00Z',
        })
      ).body.event;
      const day = '1815-06-18T00:00:00Z/1815-06-18T23:59:59Z';

      const first = await b.get('/api/v1/monitor-paradox', { timeline_id: 'primary', time_range: day, limit: '2' });
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({
        is_stable: false,
        reasons: [expect.objectContaining({ code: 'event_displaced', event_id: hougoumont.event_id })],
      });
      expect(first.body).toMatchObject({ manipulated_count: 1, manipulated_event_ids: [hougoumont.event_id] });
      expect(first.body.next_cursor).toEqual(expect.any(String));

      const second = await b.get('/api/v1/monitor-paradox', {
        timeline_id: 'primary',
        time_range: day,
        limit: '2',
        cursor: first.body.next_cursor,
      });
      expect(second.body).toMatchObject({
        is_stable: false,
        manipulated_count: 1,
        manipulated_event_ids: [hougoumont.event_id],
        next_cursor: null,
      });
      // The manipulation is recorded as an event of its own, at the new time; nothing else is marked.
      // It shares 13:00 with the moved arrival, and events of one instant are listed by id.
      const manipulation = second.body.events_monitored
        .concat(first.body.events_monitored)
        .find((event: { kind: string }) => event.kind === 'manipulation');
      expect(manipulation).toMatchObject({ time: moved.time, location: 'Hougoumont', manipulated: false });
      const atOne = [{ ...moved, manipulated: true }, manipulation].sort((x, y) => (x.event_id < y.event_id ? -1 : 1));
      expect([...first.body.events_monitored, ...second.body.events_monitored]).toEqual([ligny, ...atOne, wavre]);
    });

    it.each([
      ['a limit of 0', { limit: '0' }, 'limit'],
      ['a limit over 500', { limit: '501' }, 'limit'],
      ['a cursor it did not hand out', { cursor: 'not-a-cursor' }, 'cursor'],
    ])('refuses %s with 400 naming it', async (_case, query, field) => {
      const response = await a.get('/api/v1/monitor-paradox', {
        timeline_id: 'primary',
        time_range: ALL_TIME,
        ...query,
      });
      expect(response.status).toBe(400);
      expect(fieldsAtFault(response.body)).toEqual([field]);
    });

    it('refuses an unknown timeline with 404 timeline_not_found', async () => {
      const response = await a.get('/api/v1/monitor-paradox', {
        timeline_id: 'tml_ffffffffffffffffffffffffffffffff',
        time_range: ALL_TIME,
      });
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({
        code: 'timeline_not_found',
        timeline_id: 'tml_ffffffffffffffffffffffffffffffff',
      });
    });

    it.each([
      ['missing', {}],
      ['start after end', { time_range: '2001-01-01T00:00:00Z/2000-01-01T00:00:00Z' }],
      ['a single date-time', { time_range: '2001-01-01T00:00:00Z' }],
    ])('refuses a time_range that is %s with 400 naming time_range', async (_case, query) => {
      const response = await a.get('/api/v1/monitor-paradox', { timeline_id: 'primary', ...query });
      expect(response.status).toBe(400);
      expect(fieldsAtFault(response.body)).toEqual(['time_range']);
    });
  });

  describe('GET /api/v1/check-timeline', () => {
    it('checks a timeline around a significant event given by id', async () => {
      const response = await a.get('/api/v1/check-timeline', {
        timeline_id: 'primary',
        significant_event: retrievalId,
      });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        timeline_id: 'primary',
        is_stable: true,
        timeline_stability: 'Stable',
        reason_count: 0,
        reason_count_capped: false,
        reasons: [],
        significant_event: expect.objectContaining({
          event_id: retrievalId,
          description: 'Item retrieved: Dagger',
          time: '0044-03-15T11:00:00Z',
        }),
      });
    });

    it('finds the significant event by name, ignoring case and spacing', async () => {
      const response = await a.get('/api/v1/check-timeline', {
        timeline_id: 'primary',
        significant_event: '  item RETRIEVED:   dagger ',
      });
      expect(response.status).toBe(200);
      expect(response.body.significant_event.event_id).toBe(retrievalId);
    });

    it('refuses an event not recorded on the timeline with 422 unknown_event', async () => {
      const response = await a.get('/api/v1/check-timeline', {
        timeline_id: 'primary',
        significant_event: 'Caesar survives',
      });
      expect(response.status).toBe(422);
      expect(response.body).toMatchObject({
        code: 'unknown_event',
        timeline_id: 'primary',
        significant_event: 'Caesar survives',
      });
    });

    it("refuses an event id recorded on another of the account's timelines with 422 unknown_event", async () => {
      const other = await a.post('/v1/timelines', { name: 'Elsewhere', destination_time: '1200-01-01T00:00:00Z' });
      const response = await a.get('/api/v1/check-timeline', {
        timeline_id: other.body.id,
        significant_event: retrievalId,
      });
      expect(response.status).toBe(422);
      expect(response.body.code).toBe('unknown_event');
    });

    it('refuses an unknown timeline with 404 timeline_not_found', async () => {
      const response = await a.get('/api/v1/check-timeline', {
        timeline_id: 'tml_ffffffffffffffffffffffffffffffff',
        significant_event: retrievalId,
      });
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('timeline_not_found');
    });

    it('refuses a check without significant_event with 400 naming it', async () => {
      const response = await a.get('/api/v1/check-timeline', { timeline_id: 'primary' });
      expect(response.status).toBe(400);
      expect(fieldsAtFault(response.body)).toEqual(['significant_event']);
    });
  });
});
