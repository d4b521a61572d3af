import { asAccount, fieldsAtFault, SPEC_DATE_TIME, type AccountClient } from '../support/http/as-account';
import { startTestApp, type TestApp } from '../support/http/test-app';

// Family A's travel, anchors, items, event monitoring and paradox check: the spec's fields, a
// human-readable `status` on every success, date-times in the spec's form.
describe('Family A: travel, anchors, items and checks', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const newAccount = async (): Promise<AccountClient> => asAccount(t, await t.signUp());

  function expectStatusText(body: { status?: unknown }): void {
    expect(typeof body.status).toBe('string');
    expect(String(body.status).trim().length).toBeGreaterThan(0);
  }

  describe('POST /v1/travel', () => {
    it('moves the clock and the traveller to the moment and place', async () => {
      const a = await newAccount();
      const response = await a.post('/v1/travel', {
        destination_time: '1969-07-20T20:17:40Z',
        location: 'Sea of Tranquility',
      });

      expect(response.status).toBe(200);
      expectStatusText(response.body);
      expect(response.body).toMatchObject({
        current_time: '1969-07-20T20:17:40Z',
        location: 'Sea of Tranquility',
        timeline_id: 'primary',
      });
      expect(response.body.status).toContain('Sea of Tranquility');
      expect(response.body.travel_id).toMatch(/^trv_[0-9a-f]{32}$/);

      const traveller = await a.traveller();
      expect(traveller.location).toBe('Sea of Tranquility');
      expect(traveller.timelineId).toBe('primary');
      expect(Math.abs(traveller.clockReading.getTime() - Date.parse('1969-07-20T20:17:40Z'))).toBeLessThan(1_000);
      expect(await t.prisma.travel.count({ where: { id: response.body.travel_id } })).toBe(1);
    });

    it('answers in UTC, to the second, whatever offset and fraction the request used', async () => {
      const a = await newAccount();
      const response = await a.post('/v1/travel', {
        destination_time: '1815-06-18T13:30:15.987+02:00',
        location: 'Waterloo',
      });
      expect(response.status).toBe(200);
      expect(response.body.current_time).toBe('1815-06-18T11:30:15Z');
    });

    it.each<[string, object, string[]]>([
      ['no location', { destination_time: '2000-01-01T00:00:00Z' }, ['location']],
      ['an empty location', { destination_time: '2000-01-01T00:00:00Z', location: '' }, ['location']],
      ['no destination_time', { location: 'Rome' }, ['destination_time']],
      ['an impossible date', { destination_time: '2023-02-30T00:00:00Z', location: 'Rome' }, ['destination_time']],
      ['a date without a zone', { destination_time: '2023-02-01T00:00:00', location: 'Rome' }, ['destination_time']],
      ['year 10000', { destination_time: '10000-01-01T00:00:00Z', location: 'Rome' }, ['destination_time']],
      ['an unknown field', { destination_time: '2000-01-01T00:00:00Z', location: 'Rome', when: 'now' }, ['when']],
    ])('refuses %s with 400 validation_failed naming the field, and does not move', async (_case, body, fields) => {
      const a = await newAccount();
      const before = await a.traveller();
      const response = await a.post('/v1/travel', body);
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('validation_failed');
      expect(fieldsAtFault(response.body)).toEqual(fields);
      expect(await a.traveller()).toEqual(before);
    });
  });

  describe('POST /v1/set-anchor and POST /v1/return', () => {
    it('sets an anchor and answers its anchor_id with a status', async () => {
      const a = await newAccount();
      const response = await a.post('/v1/set-anchor', {
        timestamp: '2015-10-21T16:29:00Z',
        description: 'Hill Valley',
      });

      expect(response.status).toBe(200);
      expectStatusText(response.body);
      expect(response.body.anchor_id).toMatch(/^anc_[0-9a-f]{32}$/);
      expect(response.body).toMatchObject({ timestamp: '2015-10-21T16:29:00Z', timeline_id: 'primary' });

      const stored = await t.prisma.anchor.findFirstOrThrow({ where: { id: response.body.anchor_id } });
      expect(stored).toMatchObject({ description: 'Hill Valley', timelineId: 'primary', location: 'home' });
      expect(stored.timestamp.toISOString()).toBe('2015-10-21T16:29:00.000Z');
    });

    it('anchors the current time when no timestamp is given', async () => {
      const a = await newAccount();
      await a.post('/v1/pause-time');
      await a.post('/v1/travel', { destination_time: '1492-10-12T06:00:00Z', location: 'Guanahani' });
      const response = await a.post('/v1/set-anchor', { description: 'Landfall' });
      expect(response.status).toBe(200);
      expect(response.body.timestamp).toBe('1492-10-12T06:00:00Z');
    });

    it('refuses an anchor without a description', async () => {
      const a = await newAccount();
      const response = await a.post('/v1/set-anchor', { timestamp: '2015-10-21T16:29:00Z' });
      expect(response.status).toBe(400);
      expect(fieldsAtFault(response.body)).toEqual(['description']);
      expect(await t.prisma.anchor.count({ where: { accountId: a.account.id } })).toBe(0);
    });

    it('returns to the anchor: its time, its place', async () => {
      const a = await newAccount();
      await a.post('/v1/travel', { destination_time: '1889-05-06T10:00:00Z', location: 'Paris' });
      const anchor = await a.post('/v1/set-anchor', {
        timestamp: '1889-05-06T10:00:00Z',
        description: 'Exposition opens',
      });
      await a.post('/v1/travel', { destination_time: '2024-01-01T00:00:00Z', location: 'Tokyo' });

      const response = await a.post('/v1/return', { anchor_id: anchor.body.anchor_id });

      expect(response.status).toBe(200);
      expectStatusText(response.body);
      expect(response.body).toMatchObject({
        current_time: '1889-05-06T10:00:00Z',
        location: 'Paris',
        timeline_id: 'primary',
      });
      const traveller = await a.traveller();
      expect(traveller.location).toBe('Paris');
      expect(Math.abs(traveller.clockReading.getTime() - Date.parse('1889-05-06T10:00:00Z'))).toBeLessThan(1_000);
    });

    it('refuses an unknown anchor with 404 anchor_not_found naming it, and does not move', async () => {
      const a = await newAccount();
      const before = await a.traveller();
      const response = await a.post('/v1/return', { anchor_id: 'anc_ffffffffffffffffffffffffffffffff' });
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({
        code: 'anchor_not_found',
        anchor_id: 'anc_ffffffffffffffffffffffffffffffff',
      });
      expect(await a.traveller()).toEqual(before);
    });

    it('does not return to a timeline: /v1/return takes anchors only', async () => {
      const a = await newAccount();
      const response = await a.post('/v1/return', { anchor_id: 'primary' });
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('anchor_not_found');
    });

    it('refuses a return without anchor_id', async () => {
      const a = await newAccount();
      const response = await a.post('/v1/return', {});
      expect(response.status).toBe(400);
      expect(fieldsAtFault(response.body)).toEqual(['anchor_id']);
    });
  });

  describe('GET /v1/retrieve-item', () => {
    const coin = { item_description: 'Roman coin', location: 'Forum', time: '0044-03-15T11:00:00Z' };

    it('retrieves an item: item_id, status and item_details', async () => {
      const a = await newAccount();
      const response = await a.get('/v1/retrieve-item', coin);

      expect(response.status).toBe(200);
      expectStatusText(response.body);
      expect(response.body.item_id).toMatch(/^itm_[0-9a-f]{32}$/);
      expect(response.body.item_details).toEqual({ description: 'Roman coin', retrieved_at: '0044-03-15T11:00:00Z' });
      const stored = await t.prisma.item.findFirstOrThrow({ where: { id: response.body.item_id } });
      expect(stored).toMatchObject({
        description: 'Roman coin',
        location: 'Forum',
        timelineId: 'primary',
        carriedHomeBy: null,
      });
    });

    it('answers the same item when asked again, registering no copy', async () => {
      const a = await newAccount();
      const first = await a.get('/v1/retrieve-item', coin);
      const second = await a.get('/v1/retrieve-item', coin);

      expect(second.status).toBe(200);
      expect(second.body.item_id).toBe(first.body.item_id);
      expect(second.body.status).not.toBe(first.body.status);
      expect(second.body.item_details).toEqual(first.body.item_details);
      expect(await t.prisma.item.count({ where: { accountId: a.account.id } })).toBe(1);
    });

    it('registers another item when the time differs', async () => {
      const a = await newAccount();
      const first = await a.get('/v1/retrieve-item', coin);
      const later = await a.get('/v1/retrieve-item', { ...coin, time: '0044-03-15T12:00:00Z' });
      expect(later.body.item_id).not.toBe(first.body.item_id);
      expect(later.body.item_details.retrieved_at).toBe('0044-03-15T12:00:00Z');
    });

    it.each<[string, Record<string, string>, string[]]>([
      ['no time', { item_description: 'Coin', location: 'Forum' }, ['time']],
      ['a bad time', { item_description: 'Coin', location: 'Forum', time: 'yesterday' }, ['time']],
      ['no description', { location: 'Forum', time: '0044-03-15T11:00:00Z' }, ['item_description']],
      ['no location', { item_description: 'Coin', time: '0044-03-15T11:00:00Z' }, ['location']],
    ])('refuses %s with 400 naming the field', async (_case, query, fields) => {
      const a = await newAccount();
      const response = await a.get('/v1/retrieve-item', query);
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('validation_failed');
      expect(fieldsAtFault(response.body)).toEqual(fields);
    });
  });

  describe('GET /v1/monitor-events', () => {
    it('answers status and events as {time, description}, oldest first', async () => {
      const a = await newAccount();
      await a.post('/v1/travel', { destination_time: '1500-01-02T00:00:00Z', location: 'Florence' });
      await a.post('/v1/travel', { destination_time: '1500-01-01T00:00:00Z', location: 'Florence' });

      const response = await a.get('/v1/monitor-events', {
        location: 'Florence',
        time_range: '1500-01-01T00:00:00Z/1500-12-31T00:00:00Z',
      });

      expect(response.status).toBe(200);
      expectStatusText(response.body);
      expect(response.body.events).toEqual([
        expect.objectContaining({ time: '1500-01-01T00:00:00Z', description: 'Traveller arrives at Florence' }),
        expect.objectContaining({ time: '1500-01-02T00:00:00Z', description: 'Traveller arrives at Florence' }),
      ]);
      for (const event of response.body.events) expect(event.time).toMatch(SPEC_DATE_TIME);
      expect(response.body.next_cursor).toBeNull();
    });

    it('answers an empty list when nothing happened there', async () => {
      const a = await newAccount();
      const response = await a.get('/v1/monitor-events', {
        location: 'Nowhere',
        time_range: '2000-01-01T00:00:00Z/2001-01-01T00:00:00Z',
      });
      expect(response.status).toBe(200);
      expectStatusText(response.body);
      expect(response.body.events).toEqual([]);
    });

    it.each([
      ['not an interval', '2000-01-01T00:00:00Z'],
      ['start after end', '2001-01-01T00:00:00Z/2000-01-01T00:00:00Z'],
      ['three parts', '2000-01-01T00:00:00Z/2000-06-01T00:00:00Z/2001-01-01T00:00:00Z'],
      ['a bad date', '2000-13-01T00:00:00Z/2001-01-01T00:00:00Z'],
    ])('refuses a time_range that is %s with 400 naming time_range', async (_case, timeRange) => {
      const a = await newAccount();
      const response = await a.get('/v1/monitor-events', { location: 'Rome', time_range: timeRange });
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('validation_failed');
      expect(fieldsAtFault(response.body)).toEqual(['time_range']);
    });
  });

  describe('GET /v1/check-paradox', () => {
    it('reports the primary timeline of a new account as Stable with a status', async () => {
      const a = await newAccount();
      const response = await a.get('/v1/check-paradox', { timeline_id: 'primary' });
      expect(response.status).toBe(200);
      expectStatusText(response.body);
      expect(response.body).toMatchObject({
        timeline_stability: 'Stable',
        is_stable: true,
        reasons: [],
        timeline_id: 'primary',
      });
    });

    it('checks a timeline created through Family B', async () => {
      const a = await newAccount();
      const timeline = await a.post('/v1/timelines', { name: 'Renaissance', destination_time: '1504-09-08T00:00:00Z' });
      const response = await a.get('/v1/check-paradox', { timeline_id: timeline.body.id });
      expect(response.status).toBe(200);
      expect(response.body.timeline_stability).toBe('Stable');
    });

    it('refuses an unknown timeline with 404 timeline_not_found', async () => {
      const a = await newAccount();
      const response = await a.get('/v1/check-paradox', { timeline_id: 'tml_ffffffffffffffffffffffffffffffff' });
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({
        code: 'timeline_not_found',
        timeline_id: 'tml_ffffffffffffffffffffffffffffffff',
      });
    });

    it('refuses a check without timeline_id', async () => {
      const a = await newAccount();
      const response = await a.get('/v1/check-paradox');
      expect(response.status).toBe(400);
      expect(fieldsAtFault(response.body)).toEqual(['timeline_id']);
    });
  });
});
