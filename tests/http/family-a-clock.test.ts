import {
  asAccount,
  DAY,
  fieldsAtFault,
  HOUR,
  MINUTE,
  plusMs,
  SPEC_DATE_TIME,
  type AccountClient,
} from '../support/http/as-account';
import { startTestApp, type TestApp } from '../support/http/test-app';

// Family A's clock: pause, resume, fast-forward and rewind (spec "Flow of time").
describe('Family A: the flow of time', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  /** A new account whose clock is paused at `at`, so every later reading is exact. */
  async function pausedAt(at: string): Promise<AccountClient> {
    const a = asAccount(t, await t.signUp());
    expect((await a.post('/v1/pause-time')).status).toBe(200);
    expect((await a.post('/v1/travel', { destination_time: at, location: 'Lab' })).body.current_time).toBe(at);
    return a;
  }

  describe('pause and resume', () => {
    it('pauses at the current time and stores the clock as paused', async () => {
      const a = asAccount(t, await t.signUp());
      const before = Date.now();
      const response = await a.post('/v1/pause-time');

      expect(response.status).toBe(200);
      expect(typeof response.body.status).toBe('string');
      expect(response.body.status.length).toBeGreaterThan(0);
      expect(response.body.paused_at).toMatch(SPEC_DATE_TIME);
      expect(Math.abs(Date.parse(response.body.paused_at) - before)).toBeLessThan(5_000);
      expect((await a.traveller()).clockPaused).toBe(true);
    });

    it('refuses a second pause with 409 clock_already_paused and changes nothing', async () => {
      const a = asAccount(t, await t.signUp());
      await a.post('/v1/pause-time');
      const before = await a.traveller();
      t.clock.advanceMinutes(5);

      const again = await a.post('/v1/pause-time');

      expect(again.status).toBe(409);
      expect(again.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(again.body).toMatchObject({ status: 409, code: 'clock_already_paused' });
      expect(await a.traveller()).toEqual(before);
    });

    it('refuses resume while running with 409 clock_already_running and changes nothing', async () => {
      const a = asAccount(t, await t.signUp());
      const before = await a.traveller();

      const response = await a.post('/v1/resume-time');

      expect(response.status).toBe(409);
      expect(response.body.code).toBe('clock_already_running');
      expect(await a.traveller()).toEqual(before);
    });

    it('resumes from the exact moment of pausing, however long the pause lasted', async () => {
      const a = asAccount(t, await t.signUp());
      const paused = await a.post('/v1/pause-time');
      t.clock.advanceMinutes(90);

      const resumed = await a.post('/v1/resume-time');

      expect(resumed.status).toBe(200);
      expect(typeof resumed.body.status).toBe('string');
      expect(resumed.body.current_time).toMatch(SPEC_DATE_TIME);
      expect(resumed.body.current_time).toBe(paused.body.paused_at);
      expect((await a.traveller()).clockPaused).toBe(false);
    });

    it('lets time run again after resuming, and holds it still while paused', async () => {
      const a = await pausedAt('2001-09-09T01:46:40Z');
      t.clock.advanceMinutes(60); // paused: no effect
      await a.post('/v1/resume-time');
      t.clock.advanceMinutes(10); // running: ten minutes pass

      const paused = await a.post('/v1/pause-time');

      const elapsed = Date.parse(paused.body.paused_at) - Date.parse('2001-09-09T01:46:40Z');
      expect(elapsed).toBeGreaterThanOrEqual(10 * MINUTE);
      expect(elapsed).toBeLessThan(10 * MINUTE + 5_000);
    });

    it('keeps a paused clock paused across a travel', async () => {
      const a = await pausedAt('1900-01-01T00:00:00Z');
      expect((await a.traveller()).clockPaused).toBe(true);
      expect((await a.post('/v1/pause-time')).body.code).toBe('clock_already_paused');
    });
  });

  describe('fast-forward and rewind', () => {
    it.each([
      ['90m', 90 * MINUTE],
      ['1m', MINUTE],
      ['2h', 2 * HOUR],
      ['3d', 3 * DAY],
      ['400d', 400 * DAY],
    ])('fast-forwards by %s exactly', async (duration, ms) => {
      const a = await pausedAt('2020-02-28T12:00:00Z');
      const response = await a.post('/v1/fast-forward', { duration });

      expect(response.status).toBe(200);
      expect(response.body.status).toEqual(expect.stringContaining(duration));
      expect(response.body.new_time).toMatch(SPEC_DATE_TIME);
      expect(response.body.new_time).toBe(plusMs('2020-02-28T12:00:00Z', ms));
      expect((await a.traveller()).clockReading.toISOString()).toBe(
        plusMs('2020-02-28T12:00:00Z', ms).replace('Z', '.000Z'),
      );
    });

    it.each([
      ['45m', 45 * MINUTE],
      ['25h', 25 * HOUR],
      ['7d', 7 * DAY],
    ])('rewinds by %s exactly', async (duration, ms) => {
      const a = await pausedAt('2020-03-01T00:00:00Z');
      const response = await a.post('/v1/rewind', { duration });

      expect(response.status).toBe(200);
      expect(response.body.status).toEqual(expect.stringContaining(duration));
      expect(response.body.new_time).toBe(plusMs('2020-03-01T00:00:00Z', -ms));
    });

    it('adds up shifts: forward 1d, back 2h, forward 30m', async () => {
      const a = await pausedAt('2024-01-01T00:00:00Z');
      await a.post('/v1/fast-forward', { duration: '1d' });
      await a.post('/v1/rewind', { duration: '2h' });
      const last = await a.post('/v1/fast-forward', { duration: '30m' });
      expect(last.body.new_time).toBe('2024-01-01T22:30:00Z');
    });

    it('shifts a paused clock and leaves it paused', async () => {
      const a = await pausedAt('2024-01-01T00:00:00Z');
      await a.post('/v1/fast-forward', { duration: '1h' });
      t.clock.advanceMinutes(30);
      const resumed = await a.post('/v1/resume-time');
      expect(resumed.body.current_time).toBe('2024-01-01T01:00:00Z');
    });

    describe.each(['/v1/fast-forward', '/v1/rewind'])('%s refuses a bad duration', (path) => {
      it.each<[string, unknown]>([
        ['0m', '0m'],
        ['-5m', '-5m'],
        ['1.5h', '1.5h'],
        ['5s', '5s'],
        ['5 (no unit)', '5'],
        ['m (no number)', 'm'],
        ['" 5m" (leading space)', ' 5m'],
        ['"5m " (trailing space)', '5m '],
        ['5M (upper case)', '5M'],
        ['5 as a number', 5],
        ['an empty string', ''],
      ])(
        '%s: 400 validation_failed naming duration, listing the accepted forms; clock unchanged',
        async (_case, duration) => {
          const a = await pausedAt('2024-06-01T00:00:00Z');
          const before = await a.traveller();

          const response = await a.post(path, { duration });

          expect(response.status).toBe(400);
          expect(response.body.code).toBe('validation_failed');
          expect(fieldsAtFault(response.body)).toEqual(['duration']);
          const message: string = response.body.errors[0].message;
          expect(message).toContain("'<n>m'");
          expect(message).toContain("'<n>h'");
          expect(message).toContain("'<n>d'");
          expect(await a.traveller()).toEqual(before);
        },
      );
    });

    it.each([{}, { duration: null }])('refuses %j with 400: duration is required', async (body) => {
      const a = asAccount(t, await t.signUp());
      const response = await a.post('/v1/fast-forward', body);
      expect(response.status).toBe(400);
      expect(response.body.errors).toEqual([{ field: 'duration', message: 'duration is required' }]);
    });

    it('refuses a result beyond year 9999 with 400 time_out_of_range and leaves the clock alone', async () => {
      const a = await pausedAt('9999-12-31T00:00:00Z');
      const before = await a.traveller();

      const response = await a.post('/v1/fast-forward', { duration: '2d' });

      expect(response.status).toBe(400);
      expect(response.body.code).toBe('time_out_of_range');
      expect(await a.traveller()).toEqual(before);
    });

    it('still allows a shift that ends exactly inside the range (to 9999-12-31T23:59:00Z)', async () => {
      const a = await pausedAt('9999-12-31T00:00:00Z');
      const response = await a.post('/v1/fast-forward', { duration: '1439m' });
      expect(response.status).toBe(200);
      expect(response.body.new_time).toBe('9999-12-31T23:59:00Z');
    });

    it('refuses a rewind before year 0001 with 400 time_out_of_range and leaves the clock alone', async () => {
      const a = await pausedAt('0001-01-01T00:00:00Z');
      const before = await a.traveller();

      const response = await a.post('/v1/rewind', { duration: '1m' });

      expect(response.status).toBe(400);
      expect(response.body.code).toBe('time_out_of_range');
      expect(await a.traveller()).toEqual(before);
    });

    it('refuses the largest duration it parses (9999999d) as out of range, not as a service failure', async () => {
      const a = await pausedAt('2024-01-01T00:00:00Z');
      for (const path of ['/v1/fast-forward', '/v1/rewind']) {
        const response = await a.post(path, { duration: '9999999d' });
        expect(response.status).toBe(400);
        expect(response.body.code).toBe('time_out_of_range');
      }
    });
  });
});
