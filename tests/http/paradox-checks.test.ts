import request from 'supertest';
import { CHECK_BOUNDS, MOVED_OUT_SIFTED, NAMED_BOUNDS } from '../../src/core/domain/paradox';
import { textDigest } from '../../src/infrastructure/persistence/postgres/text-digest';
import { startTestApp, type TestAccount, type TestApp } from '../support/http/test-app';

/** A new app, an account of it and a timeline of the account. */
async function aTimeline(name: string, destinationTime: string) {
  const t = await startTestApp();
  const me = await t.signUp();
  const timeline = await request(t.app)
    .post('/v1/timelines')
    .set('Authorization', me.auth)
    .send({ name, destination_time: destinationTime });
  return { t, me, timelineId: String(timeline.body.id) };
}

describe('POST /v1/paradox-checks', () => {
  let t: TestApp;
  let me: TestAccount;
  let timelineId: string;
  beforeAll(async () => {
    ({ t, me, timelineId } = await aTimeline('Hastings', '1066-10-14T09:00:00Z'));
  });
  afterAll(() => t.close());

  const check = (body: object) => request(t.app).post('/v1/paradox-checks').set('Authorization', me.auth).send(body);

  it('calls a timeline with no proposed changes stable, whether the list is empty or omitted', async () => {
    for (const body of [{ timeline_id: timelineId, proposed_changes: [] }, { timeline_id: timelineId }]) {
      const response = await check(body);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        timeline_id: timelineId,
        is_stable: true,
        timeline_stability: 'Stable',
        reason_count: 0,
        reason_count_capped: false,
        reasons: [],
      });
    }
  });

  it('calls one event at two different times unstable, naming the event and both times', async () => {
    const response = await check({
      timeline_id: timelineId,
      proposed_changes: [
        { event: 'Harold is struck', time: '1066-10-14T16:00:00Z' },
        { event: ' harold IS struck ', time: '1066-10-14T17:30:00Z' },
      ],
    });
    expect(response.status).toBe(200);
    expect(response.body.is_stable).toBe(false);
    expect(response.body.reasons).toEqual([
      expect.objectContaining({
        code: 'event_at_two_times',
        event: 'Harold is struck',
        times: ['1066-10-14T16:00:00Z', '1066-10-14T17:30:00Z'],
      }),
    ]);
  });

  it('refuses an item that does not exist instead of calling it stable', async () => {
    const response = await check({ timeline_id: timelineId, proposed_changes: [{ item_id: 'itm_ghost' }] });
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ code: 'unknown_items', item_ids: ['itm_ghost'] });
  });

  it('answers 404 for an unknown timeline', async () => {
    const response = await check({ timeline_id: 'tml_unknown', proposed_changes: [] });
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('timeline_not_found');
  });
});

describe('paradox checks on a timeline of more displaced events than a check counts', () => {
  let t: TestApp;
  let me: TestAccount;
  let timelineId: string;
  // More than a check counts, and more than a page sifts for the moved-out ones.
  const DISPLACED = MOVED_OUT_SIFTED + 5;
  beforeAll(async () => {
    ({ t, me, timelineId } = await aTimeline('Waterloo', '1815-06-18T11:00:00Z'));
    // Item retrievals a minute apart, each moved by an hour: as many manipulations would leave them.
    await t.prisma.$executeRawUnsafe(
      `INSERT INTO events (account_id, id, timeline_id, kind, time, original_time, description, location,
         description_key, location_key, subject_id, recorded_at, revision)
       SELECT $1, 'evt_' || lpad(n::text, 6, '0'), $2, 'item_retrieved',
         timestamptz '1815-06-18T00:00:00Z' + n * interval '1 minute' + interval '1 hour',
         timestamptz '1815-06-18T00:00:00Z' + n * interval '1 minute',
         'Item ' || n, 'Waterloo', md5('item ' || n), md5('waterloo'), 'itm_' || n, now(), 1
       FROM generate_series(1, $3::int) AS n`,
      me.id,
      timelineId,
      DISPLACED,
    );
  });
  afterAll(() => t.close());

  const get = (path: string) => request(t.app).get(path).set('Authorization', me.auth);

  it('counts the reasons up to the bound, says it stopped there, and lists the first by original time', async () => {
    const response = await get(`/v1/check-paradox?timeline_id=${timelineId}`);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      status: `Timeline is unstable: at least ${CHECK_BOUNDS.counted} conflict(s) found.`,
      is_stable: false,
      reason_count: CHECK_BOUNDS.counted,
      reason_count_capped: true,
    });
    expect(response.body.reasons).toHaveLength(CHECK_BOUNDS.listed);
    expect(response.body.reasons[0]).toMatchObject({ code: 'event_displaced', event_id: 'evt_000001' });
  });

  it("counts a range's manipulated events up to the bound and lists the first by time", async () => {
    const range = '1815-06-18T00:00:00Z/1815-06-19T23:59:59Z';
    const response = await get(`/api/v1/monitor-paradox?timeline_id=${timelineId}&time_range=${range}&limit=1`);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      is_stable: false,
      reason_count: CHECK_BOUNDS.counted,
      reason_count_capped: true,
      manipulated_count: CHECK_BOUNDS.counted,
      manipulated_count_capped: true,
    });
    expect(response.body.manipulated_event_ids).toHaveLength(CHECK_BOUNDS.listed);
    expect(response.body.manipulated_event_ids[0]).toBe('evt_000001');
  });

  it('lists the events moved out of a crowded range when among the first it sifts, and says so', async () => {
    // Originally at minutes 1 to 1,005, all in the range; an hour later, those from minute 961 on
    // are past its end. Of these moved-out ones, those from minute 1,001 on are past the first 1,000
    // (MOVED_OUT_SIFTED).
    const range = '1815-06-18T00:00:00Z/1815-06-18T17:00:00Z';
    const listed: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await get(
        `/api/v1/monitor-paradox?timeline_id=${timelineId}&time_range=${range}&limit=500` +
          (cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''),
      );
      expect(page.status).toBe(200);
      expect(page.body).toMatchObject({ manipulated_count_capped: true });
      listed.push(...page.body.events_monitored.map((event: { event_id: string }) => event.event_id));
      cursor = page.body.next_cursor;
    } while (cursor);
    const minute = (n: number) => `evt_${String(n).padStart(6, '0')}`;
    expect(listed).toHaveLength(MOVED_OUT_SIFTED);
    expect(listed.slice(0, 3)).toEqual([minute(1), minute(2), minute(3)]);
    expect(listed.slice(-2)).toEqual([minute(999), minute(1000)]);
    expect(listed).not.toContain(minute(1001));
  });

  it('counts exactly below the bound', async () => {
    const range = '1815-06-18T00:00:00Z/1815-06-18T00:09:59Z';
    const response = await get(`/api/v1/monitor-paradox?timeline_id=${timelineId}&time_range=${range}`);
    // Originally at minutes 1 to 9, now an hour later: in the range by their original time alone.
    expect(response.body).toMatchObject({
      reason_count: 9,
      reason_count_capped: false,
      manipulated_count: 9,
      manipulated_count_capped: false,
    });
  });
});

describe('paradox checks proposing a name recorded more often than a check counts', () => {
  let t: TestApp;
  let me: TestAccount;
  let timelineId: string;
  const RECORDED = NAMED_BOUNDS.counted + 5;
  const NAME = 'Arrival at Greenwich';
  /** The n-th recorded arrival's time: a minute apart from 1900 on. */
  const arrival = (n: number) => new Date(Date.UTC(1900, 0, 1, 0, n)).toISOString().replace('.000Z', 'Z');
  beforeAll(async () => {
    ({ t, me, timelineId } = await aTimeline('Greenwich', '1900-01-01T00:00:00Z'));
    await t.prisma.$executeRawUnsafe(
      `INSERT INTO events (account_id, id, timeline_id, kind, time, original_time, description, location,
         description_key, location_key, subject_id, recorded_at, revision)
       SELECT $1, 'evt_' || lpad(n::text, 6, '0'), $2, 'arrival',
         timestamptz '1900-01-01T00:00:00Z' + n * interval '1 minute',
         timestamptz '1900-01-01T00:00:00Z' + n * interval '1 minute',
         $4, 'Greenwich', $5, md5('greenwich'), 'trv_' || n, now(), 0
       FROM generate_series(1, $3::int) AS n`,
      me.id,
      timelineId,
      RECORDED,
      NAME,
      textDigest(NAME),
    );
  });
  afterAll(() => t.close());

  const check = (time: string) =>
    request(t.app)
      .post('/v1/paradox-checks')
      .set('Authorization', me.auth)
      .send({ timeline_id: timelineId, proposed_changes: [{ event: NAME, time }] });

  it('lists the first recorded events and their times, and counts them up to the bound', async () => {
    const response = await check('1899-12-31T00:00:00Z');
    expect(response.status).toBe(200);
    const listed = Array.from({ length: NAMED_BOUNDS.listed }, (_, n) => n + 1);
    expect(response.body).toMatchObject({ is_stable: false, reason_count: 1, reason_count_capped: false });
    expect(response.body.reasons).toEqual([
      {
        code: 'event_at_two_times',
        message: expect.stringContaining('is proposed at a time it is not recorded at'),
        event: NAME,
        times: ['1899-12-31T00:00:00Z', ...listed.map(arrival)],
        event_ids: listed.map((n) => `evt_${String(n).padStart(6, '0')}`),
        event_count: NAMED_BOUNDS.counted,
        event_count_capped: true,
      },
    ]);
  });

  it('agrees with history at the time of a recorded event past those counted', async () => {
    const response = await check(arrival(RECORDED));
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ is_stable: true, reasons: [] });
  });
});
