import { ALL_TIME, asAccount, type AccountClient } from '../support/http/as-account';
import { startTestApp, type TestApp } from '../support/http/test-app';

interface EventJson {
  event_id: string;
  time: string;
  description: string;
  location: string;
  timeline_id: string;
  kind: string;
  original_time: string;
  manipulated: boolean;
}

// Events are records on a timeline: what Family A monitors and Family C scans and manipulates.
describe('events', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const newAccount = async (): Promise<AccountClient> => asAccount(t, await t.signUp());
  const scan = async (a: AccountClient, body: object): Promise<EventJson[]> => {
    const response = await a.post('/api/v1/scan-events', body);
    expect(response.status).toBe(200);
    return response.body.events;
  };

  describe('what is recorded', () => {
    it('records arrivals (A and C travel), anchors, item retrievals and manipulations', async () => {
      const a = await newAccount();
      await a.post('/v1/pause-time');
      await a.post('/v1/travel', { destination_time: '1600-01-01T00:00:00Z', location: 'Globe Theatre' });
      await a.post('/v1/set-anchor', { description: 'Opening night' });
      await a.get('/v1/retrieve-item', {
        item_description: 'Quill',
        location: 'Globe Theatre',
        time: '1600-01-01T02:00:00Z',
      });
      await a.post('/api/v1/travel', { destination_time: '1600-01-01T03:00:00Z', location: 'Globe Theatre' });
      const atStart = await scan(a, {
        location: 'Globe Theatre',
        time_range: '1600-01-01T00:00:00Z/1600-01-01T00:00:00Z',
      });
      const arrival = atStart.find((event) => event.kind === 'arrival');
      if (!arrival) throw new Error('the arrival was not recorded');
      await a.post('/api/v1/manipulate-event', {
        event_id: arrival.event_id,
        action: 'Arrive late',
        time: '1600-01-01T04:00:00Z',
      });

      const events = await scan(a, {
        location: 'globe theatre',
        time_range: '1600-01-01T00:00:00Z/1600-01-02T00:00:00Z',
      });

      const byTimeAndKind = (x: { time: string; kind: string }, y: { time: string; kind: string }) =>
        x.time.localeCompare(y.time) || x.kind.localeCompare(y.kind);
      expect(events.map(({ time, kind, description }) => ({ time, kind, description })).sort(byTimeAndKind)).toEqual([
        { time: '1600-01-01T00:00:00Z', kind: 'anchor_set', description: 'Anchor set: Opening night' },
        { time: '1600-01-01T02:00:00Z', kind: 'item_retrieved', description: 'Item retrieved: Quill' },
        { time: '1600-01-01T03:00:00Z', kind: 'arrival', description: 'Traveller arrives at Globe Theatre' },
        { time: '1600-01-01T04:00:00Z', kind: 'arrival', description: 'Traveller arrives at Globe Theatre' },
        {
          time: '1600-01-01T04:00:00Z',
          kind: 'manipulation',
          description: "Manipulation of 'Traveller arrives at Globe Theatre': Arrive late",
        },
      ]);
      // Oldest first; events at one instant in id order, so the order is the same on every call.
      const order = events.map((event) => `${event.time} ${event.event_id}`);
      expect(order).toEqual([...order].sort());
      expect(events.every((event) => event.timeline_id === 'primary' && event.location === 'Globe Theatre')).toBe(true);
    });

    it('records a Family B arrival on the timeline travelled to, at its destination time', async () => {
      const a = await newAccount();
      const timeline = await a.post('/v1/timelines', { name: 'Alexandria', destination_time: '0030-01-01T00:00:00Z' });
      await a.post('/v1/travels', { destination: timeline.body.id });

      const monitored = await a.get('/v1/monitor-events', { location: 'Alexandria', time_range: ALL_TIME });

      expect(monitored.body.timeline_id).toBe(timeline.body.id);
      expect(monitored.body.events).toEqual([
        expect.objectContaining({
          time: '0030-01-01T00:00:00Z',
          description: 'Traveller arrives at Alexandria',
          kind: 'arrival',
        }),
      ]);
    });

    it('lists events oldest first, whatever order they were recorded in', async () => {
      const a = await newAccount();
      for (const time of ['1700-05-01T00:00:00Z', '1700-01-01T00:00:00Z', '1700-03-01T00:00:00Z']) {
        await a.post('/v1/travel', { destination_time: time, location: 'Vienna' });
      }
      const monitored = await a.get('/v1/monitor-events', { location: 'Vienna', time_range: ALL_TIME });
      expect(monitored.body.events.map((event: EventJson) => event.time)).toEqual([
        '1700-01-01T00:00:00Z',
        '1700-03-01T00:00:00Z',
        '1700-05-01T00:00:00Z',
      ]);
    });

    it('keeps only events inside the time range, bounds included', async () => {
      const a = await newAccount();
      for (const time of [
        '1800-01-01T00:00:00Z',
        '1800-01-02T00:00:00Z',
        '1800-01-03T00:00:00Z',
        '1800-01-04T00:00:00Z',
      ]) {
        await a.post('/v1/travel', { destination_time: time, location: 'Berlin' });
      }
      const events = await scan(a, { location: 'Berlin', time_range: '1800-01-02T00:00:00Z/1800-01-03T00:00:00Z' });
      expect(events.map((event) => event.time)).toEqual(['1800-01-02T00:00:00Z', '1800-01-03T00:00:00Z']);
    });
  });

  describe('the location parameter', () => {
    let a: AccountClient;
    beforeAll(async () => {
      a = await newAccount();
      await a.post('/v1/travel', { destination_time: '1905-06-30T09:00:00Z', location: 'Bern Patent Office' });
      await a.post('/v1/travel', { destination_time: '1905-06-30T10:00:00Z', location: 'Zurich' });
      await a.get('/v1/retrieve-item', {
        item_description: 'Manuscript',
        location: 'Bern Patent Office',
        time: '1905-06-30T09:30:00Z',
      });
    });

    it('matches a location ignoring case and spacing', async () => {
      const monitored = await a.get('/v1/monitor-events', {
        location: '  BERN   patent office ',
        time_range: ALL_TIME,
      });
      expect(monitored.body.events.map((event: EventJson) => event.description)).toEqual([
        'Traveller arrives at Bern Patent Office',
        'Item retrieved: Manuscript',
      ]);
    });

    it('matches the name of an event, ignoring case, wherever it happened', async () => {
      const monitored = await a.get('/v1/monitor-events', {
        location: 'item retrieved: MANUSCRIPT',
        time_range: ALL_TIME,
      });
      expect(monitored.body.events).toEqual([
        expect.objectContaining({ time: '1905-06-30T09:30:00Z', description: 'Item retrieved: Manuscript' }),
      ]);
    });

    it('does not match part of a location', async () => {
      const monitored = await a.get('/v1/monitor-events', { location: 'Bern', time_range: ALL_TIME });
      expect(monitored.body.events).toEqual([]);
    });
  });

  describe('the timeline_id parameter', () => {
    it('defaults to the timeline the traveller is on, and can name another', async () => {
      const a = await newAccount();
      await a.post('/v1/travel', { destination_time: '1920-01-01T00:00:00Z', location: 'Harbour' });
      const timeline = await a.post('/v1/timelines', { name: 'Harbour', destination_time: '1930-01-01T00:00:00Z' });
      await a.post('/v1/travels', { destination: timeline.body.id });

      const here = await a.get('/v1/monitor-events', { location: 'Harbour', time_range: ALL_TIME });
      const home = await a.get('/v1/monitor-events', {
        location: 'Harbour',
        time_range: ALL_TIME,
        timeline_id: 'primary',
      });
      const there = await scan(a, { location: 'Harbour', time_range: ALL_TIME, timeline_id: timeline.body.id });

      expect(here.body.timeline_id).toBe(timeline.body.id);
      expect(here.body.events.map((event: EventJson) => event.time)).toEqual(['1930-01-01T00:00:00Z']);
      expect(home.body.timeline_id).toBe('primary');
      expect(home.body.events.map((event: EventJson) => event.time)).toEqual(['1920-01-01T00:00:00Z']);
      expect(there.map((event) => event.time)).toEqual(['1930-01-01T00:00:00Z']);
    });

    it('refuses an unknown timeline with 404 timeline_not_found', async () => {
      const a = await newAccount();
      const response = await a.get('/v1/monitor-events', {
        location: 'Harbour',
        time_range: ALL_TIME,
        timeline_id: 'tml_ffffffffffffffffffffffffffffffff',
      });
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({
        code: 'timeline_not_found',
        timeline_id: 'tml_ffffffffffffffffffffffffffffffff',
      });
    });
  });

  describe('paging', () => {
    let a: AccountClient;
    let all: EventJson[];
    beforeAll(async () => {
      a = await newAccount();
      for (const time of ['1950-01-03T00:00:00Z', '1950-01-01T00:00:00Z', '1950-01-02T00:00:00Z']) {
        await a.post('/v1/travel', { destination_time: time, location: 'Delphi' });
      }
      // Three events at one instant: the cursor must tell them apart.
      for (const item of ['Laurel', 'Tripod', 'Scroll']) {
        await a.get('/v1/retrieve-item', { item_description: item, location: 'Delphi', time: '1950-01-02T00:00:00Z' });
      }
      all = await scan(a, { location: 'Delphi', time_range: ALL_TIME });
    });

    it.each([1, 2, 3, 6, 7])('chains pages of %i through every event exactly once, in order', async (limit) => {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const body: Record<string, unknown> = {
          location: 'Delphi',
          time_range: ALL_TIME,
          limit,
          ...(cursor && { cursor }),
        };
        const response = await a.post('/api/v1/scan-events', body);
        expect(response.status).toBe(200);
        expect(response.body.events.length).toBeLessThanOrEqual(limit);
        seen.push(...response.body.events.map((event: EventJson) => event.event_id));
        cursor = response.body.next_cursor;
        pages += 1;
      } while (cursor !== null && pages < 20);

      expect(all).toHaveLength(6);
      expect(seen).toEqual(all.map((event) => event.event_id));
      expect(pages).toBe(Math.ceil(6 / limit));
    });

    it('pages Family A monitor-events with the query string the same way', async () => {
      const first = await a.get('/v1/monitor-events', { location: 'Delphi', time_range: ALL_TIME, limit: 4 });
      const second = await a.get('/v1/monitor-events', {
        location: 'Delphi',
        time_range: ALL_TIME,
        limit: 4,
        cursor: first.body.next_cursor,
      });
      expect(first.body.events).toHaveLength(4);
      expect(second.body.next_cursor).toBeNull();
      expect([...first.body.events, ...second.body.events].map((event: EventJson) => event.time)).toEqual(
        all.map((event) => event.time),
      );
    });

    it.each([0, 501, 1.5, 'many'])('refuses limit %p with 400 naming limit', async (limit) => {
      const response = await a.post('/api/v1/scan-events', { location: 'Delphi', time_range: ALL_TIME, limit });
      expect(response.status).toBe(400);
      expect(response.body.errors.map((error: { field: string }) => error.field)).toContain('limit');
    });
  });

  describe('manipulation keeps the original', () => {
    it('moves the event, keeps its original time and every manipulation, first first', async () => {
      const a = await newAccount();
      await a.post('/v1/travel', { destination_time: '1912-04-14T23:40:00Z', location: 'North Atlantic' });
      const [iceberg] = await scan(a, { location: 'North Atlantic', time_range: ALL_TIME });

      await a.post('/api/v1/manipulate-event', {
        event_id: iceberg.event_id,
        action: 'Turn to port earlier',
        time: '1912-04-14T23:50:00Z',
      });
      const second = await a.post('/api/v1/manipulate-event', {
        event_id: iceberg.event_id,
        action: 'Slow down',
        time: '1912-04-15T01:00:00Z',
      });

      expect(second.body.event).toMatchObject({
        time: '1912-04-15T01:00:00Z',
        original_time: '1912-04-14T23:40:00Z',
        manipulated: true,
      });
      expect(
        second.body.history.map(({ action, from_time, to_time, revision }: Record<string, unknown>) => ({
          action,
          from_time,
          to_time,
          revision,
        })),
      ).toEqual([
        {
          action: 'Turn to port earlier',
          from_time: '1912-04-14T23:40:00Z',
          to_time: '1912-04-14T23:50:00Z',
          revision: 1,
        },
        { action: 'Slow down', from_time: '1912-04-14T23:50:00Z', to_time: '1912-04-15T01:00:00Z', revision: 2 },
      ]);

      const now = await scan(a, { location: 'North Atlantic', time_range: ALL_TIME });
      expect(now.find((event) => event.event_id === iceberg.event_id)).toMatchObject({
        time: '1912-04-15T01:00:00Z',
        original_time: '1912-04-14T23:40:00Z',
        manipulated: true,
      });
      expect(now.filter((event) => event.kind === 'manipulation')).toHaveLength(2);

      const stored = await t.prisma.event.findFirstOrThrow({ where: { id: iceberg.event_id } });
      expect(stored.originalTime.toISOString()).toBe('1912-04-14T23:40:00.000Z');
      expect(stored.revision).toBe(2);
      expect(await t.prisma.eventManipulation.count({ where: { eventId: iceberg.event_id } })).toBe(2);
    });

    it('keeps an event found by its new time, not its old one, in scans', async () => {
      const a = await newAccount();
      await a.post('/v1/travel', { destination_time: '1666-09-02T01:00:00Z', location: 'Pudding Lane' });
      const [fire] = await scan(a, { location: 'Pudding Lane', time_range: ALL_TIME });
      await a.post('/api/v1/manipulate-event', {
        event_id: fire.event_id,
        action: 'Delay',
        time: '1666-09-03T01:00:00Z',
      });

      const oldDay = await scan(a, {
        location: 'Pudding Lane',
        time_range: '1666-09-02T00:00:00Z/1666-09-02T23:59:59Z',
      });
      const newDay = await scan(a, {
        location: 'Pudding Lane',
        time_range: '1666-09-03T00:00:00Z/1666-09-03T23:59:59Z',
      });

      expect(oldDay).toEqual([]);
      expect(newDay.map((event) => event.event_id)).toContain(fire.event_id);
    });
  });

  describe('paradox monitoring sees manipulations', () => {
    it('turns Unstable (event_displaced) when an item retrieval is moved, Stable again when moved back', async () => {
      const a = await newAccount();
      const item = await a.get('/v1/retrieve-item', {
        item_description: 'Sundial',
        location: 'Syracuse',
        time: '0212-01-01T12:00:00Z',
      });
      const [retrieval] = await scan(a, { location: 'Syracuse', time_range: ALL_TIME });
      const verdicts = async () => {
        const checked = await a.get('/v1/check-paradox', { timeline_id: 'primary' });
        const monitored = await a.get('/api/v1/monitor-paradox', { timeline_id: 'primary', time_range: ALL_TIME });
        return { checked: checked.body, monitored: monitored.body };
      };

      const before = await verdicts();
      expect(before.checked.timeline_stability).toBe('Stable');
      expect(before.monitored.timeline_stability).toBe('Stable');

      await a.post('/api/v1/manipulate-event', {
        event_id: retrieval.event_id,
        action: 'Hide the sundial',
        time: '0212-06-01T12:00:00Z',
      });
      const moved = await verdicts();
      const displaced = {
        code: 'event_displaced',
        event: 'Item retrieved: Sundial',
        event_id: retrieval.event_id,
        original_time: '0212-01-01T12:00:00Z',
        time: '0212-06-01T12:00:00Z',
        dependent_id: item.body.item_id,
      };
      expect(moved.checked).toMatchObject({
        timeline_stability: 'Unstable',
        is_stable: false,
        reasons: [expect.objectContaining(displaced)],
      });
      expect(moved.checked.status).toEqual(expect.any(String));
      expect(moved.monitored).toMatchObject({
        timeline_stability: 'Unstable',
        is_stable: false,
        reasons: [expect.objectContaining(displaced)],
      });
      expect(moved.monitored).toMatchObject({ manipulated_count: 1, manipulated_event_ids: [retrieval.event_id] });
      // The retrieval, marked, and the record of its manipulation, both at the new time.
      expect(moved.monitored.events_monitored.map((event: EventJson) => [event.kind, event.manipulated])).toEqual(
        expect.arrayContaining([
          ['item_retrieved', true],
          ['manipulation', false],
        ]),
      );

      await a.post('/api/v1/manipulate-event', {
        event_id: retrieval.event_id,
        action: 'Put it back',
        time: '0212-01-01T12:00:00Z',
      });
      const restored = await verdicts();
      expect(restored.checked).toMatchObject({ timeline_stability: 'Stable', is_stable: true, reasons: [] });
      expect(restored.monitored).toMatchObject({ timeline_stability: 'Stable', is_stable: true, reasons: [] });
    });

    it('monitors a range by the current or the original time of a moved event', async () => {
      const a = await newAccount();
      await a.get('/v1/retrieve-item', {
        item_description: 'Astrolabe',
        location: 'Antikythera',
        time: '0100-01-01T00:00:00Z',
      });
      const [retrieval] = await scan(a, { location: 'Antikythera', time_range: ALL_TIME });
      await a.post('/api/v1/manipulate-event', {
        event_id: retrieval.event_id,
        action: 'Sink the ship later',
        time: '0300-01-01T00:00:00Z',
      });

      const monitor = (timeRange: string) =>
        a.get('/api/v1/monitor-paradox', { timeline_id: 'primary', time_range: timeRange });
      expect((await monitor('0099-01-01T00:00:00Z/0101-01-01T00:00:00Z')).body.timeline_stability).toBe('Unstable');
      expect((await monitor('0299-01-01T00:00:00Z/0301-01-01T00:00:00Z')).body.timeline_stability).toBe('Unstable');
      expect((await monitor('0150-01-01T00:00:00Z/0250-01-01T00:00:00Z')).body.timeline_stability).toBe('Stable');
    });

    it('does not count a manipulation that keeps the event at its time as a displacement', async () => {
      const a = await newAccount();
      await a.post('/v1/travel', { destination_time: '1776-07-04T12:00:00Z', location: 'Philadelphia' });
      const [arrival] = await scan(a, { location: 'Philadelphia', time_range: ALL_TIME });
      await a.post('/api/v1/manipulate-event', {
        event_id: arrival.event_id,
        action: 'Bring a pen',
        time: '1776-07-04T12:00:00Z',
      });
      const checked = await a.get('/v1/check-paradox', { timeline_id: 'primary' });
      expect(checked.body.timeline_stability).toBe('Stable');
    });
  });
});
