import type { AttemptResult } from '../../../src/core/domain/webhook-attempt';
import {
  attemptOutcome,
  DEFAULT_RETRY_SCHEDULE_SECONDS,
  type FinishedAttempt,
} from '../../../src/core/domain/webhook-attempt-outcome';

const SECOND = 1_000;
const HOUR = 3_600 * SECOND;
const DAY = 24 * HOUR;
const now = new Date('2030-03-01T12:00:00Z');
const ago = (ms: number) => new Date(now.getTime() - ms);

const answered = (status: number | null, more: Partial<AttemptResult> = {}): AttemptResult => ({
  status,
  error: status === null ? 'refused' : null,
  durationMs: 40,
  answer: '',
  retryAfterSeconds: null,
  ...more,
});

function finished(result: AttemptResult, more: Partial<FinishedAttempt> = {}): FinishedAttempt {
  return {
    result,
    attempt: 1,
    scheduleSeconds: DEFAULT_RETRY_SCHEDULE_SECONDS,
    failingSince: null,
    now,
    random: () => 0,
    ...more,
  };
}

/** How long after `now` the retry is due, in ms; fails the test if the outcome is no retry. */
function waitOf(attempt: FinishedAttempt): number {
  const outcome = attemptOutcome(attempt);
  if (outcome.kind !== 'retry') throw new Error(`expected a retry, got ${outcome.kind}`);
  return outcome.nextAttemptAt.getTime() - now.getTime();
}

describe('what follows a webhook attempt', () => {
  it("waits Standard Webhooks' schedule by default: 5 s to 24 h, ten attempts in all", () => {
    expect(DEFAULT_RETRY_SCHEDULE_SECONDS).toEqual([
      5,
      5 * 60,
      30 * 60,
      2 * 3_600,
      5 * 3_600,
      10 * 3_600,
      14 * 3_600,
      20 * 3_600,
      24 * 3_600,
    ]);
    const waits = [1, 2, 3, 4, 5, 6, 7, 8, 9].map((attempt) => waitOf(finished(answered(500), { attempt })));
    expect(waits).toEqual(DEFAULT_RETRY_SCHEDULE_SECONDS.map((seconds) => seconds * SECOND));
    expect(attemptOutcome(finished(answered(500), { attempt: 10 })).kind).toBe('failed');
  });

  it('delivers on any 2xx and clears the endpoint failing since', () => {
    for (const status of [200, 201, 204, 299]) {
      expect(attemptOutcome(finished(answered(status), { failingSince: ago(2 * DAY), attempt: 4 }))).toEqual({
        kind: 'delivered',
        message: 'delivered',
        failingSince: null,
        disable: null,
      });
    }
  });

  it('counts a 2xx whose answer was cut or slow as delivered: the receiver said it took the message', () => {
    expect(attemptOutcome(finished(answered(200, { error: 'too_large' }))).kind).toBe('delivered');
    expect(attemptOutcome(finished(answered(202, { error: 'timeout' }))).kind).toBe('delivered');
  });

  it('retries anything else, a redirect and no answer at all included, and marks the endpoint failing from now', () => {
    for (const result of [answered(500), answered(404), answered(302, { error: 'redirect' }), answered(null)]) {
      const outcome = attemptOutcome(finished(result));
      expect(outcome).toEqual({
        kind: 'retry',
        message: 'pending',
        nextAttemptAt: new Date(now.getTime() + 5 * SECOND),
        failingSince: now,
        disable: null,
      });
    }
  });

  it('keeps the time of the first failure since the last delivery', () => {
    const outcome = attemptOutcome(finished(answered(500), { attempt: 3, failingSince: ago(HOUR) }));
    expect(outcome).toMatchObject({ kind: 'retry', failingSince: ago(HOUR) });
  });

  it('adds up to a tenth of each wait at random, never less than the schedule', () => {
    for (const random of [0, 0.25, 0.5, 0.999_999]) {
      const wait = waitOf(finished(answered(503), { attempt: 2, random: () => random }));
      expect(wait).toBe(Math.round(300 * SECOND * (1 + 0.1 * random)));
      expect(wait).toBeGreaterThanOrEqual(300 * SECOND);
      expect(wait).toBeLessThanOrEqual(330 * SECOND);
    }
  });

  it('takes WEBHOOK_RETRY_SCHEDULE as the waits before each retry: 1,1,1,1 is five attempts a second apart', () => {
    const scheduleSeconds = [1, 1, 1, 1];
    for (const attempt of [1, 2, 3, 4])
      expect(waitOf(finished(answered(500), { attempt, scheduleSeconds }))).toBe(1_000);
    expect(attemptOutcome(finished(answered(500), { attempt: 5, scheduleSeconds }))).toEqual({
      kind: 'failed',
      message: 'failed',
      failingSince: now,
      disable: null,
    });
  });

  it('gives a resent message one attempt: failed at once, whatever the schedule has left, or delivered', () => {
    // Delivered at its first attempt, resent: its second is its last.
    expect(attemptOutcome(finished(answered(500), { attempt: 2, lastAttempt: 2 }))).toEqual({
      kind: 'failed',
      message: 'failed',
      failingSince: now,
      disable: null,
    });
    expect(attemptOutcome(finished(answered(204), { attempt: 2, lastAttempt: 2 })).kind).toBe('delivered');
    // Failed after the schedule's ten, resent: the eleventh is its last.
    expect(attemptOutcome(finished(answered(null), { attempt: 11, lastAttempt: 11 })).kind).toBe('failed');
    // A retry made while the resend was on its way counted first: the resend's attempt still ends it.
    expect(attemptOutcome(finished(answered(500), { attempt: 4, lastAttempt: 3 })).kind).toBe('failed');
    expect(attemptOutcome(finished(answered(410), { attempt: 2, lastAttempt: 2 })).kind).toBe('gone');
    expect(waitOf(finished(answered(500), { attempt: 2, lastAttempt: null }))).toBe(300 * SECOND);
  });

  describe('Retry-After', () => {
    it('waits at least as long as a 429 or a 503 asks', () => {
      expect(waitOf(finished(answered(429, { retryAfterSeconds: 600 })))).toBe(600 * SECOND);
      expect(waitOf(finished(answered(503, { retryAfterSeconds: 90 }), { attempt: 1 }))).toBe(90 * SECOND);
    });

    it('keeps the schedule when that is longer than asked', () => {
      const wait = waitOf(finished(answered(429, { retryAfterSeconds: 60 }), { attempt: 3, random: () => 0.5 }));
      expect(wait).toBe(1_890 * SECOND);
    });

    it("is bounded by the schedule's longest wait, so a receiver cannot park a message", () => {
      expect(waitOf(finished(answered(429, { retryAfterSeconds: 30 * 24 * 3_600 })))).toBe(24 * HOUR);
      const short = { scheduleSeconds: [1, 1, 1, 1] };
      expect(waitOf(finished(answered(503, { retryAfterSeconds: 3_600 }), short))).toBe(SECOND);
    });

    it('is not honoured on other statuses', () => {
      expect(waitOf(finished(answered(500, { retryAfterSeconds: 600 })))).toBe(5 * SECOND);
    });

    it('gives no attempt past the last', () => {
      const last = finished(answered(429, { retryAfterSeconds: 60 }), { attempt: 10 });
      expect(attemptOutcome(last).kind).toBe('failed');
    });
  });

  it('disables the endpoint at once on a 410, whatever the attempt, and fails the message', () => {
    expect(attemptOutcome(finished(answered(410)))).toEqual({
      kind: 'gone',
      message: 'failed',
      failingSince: now,
      disable: 'gone',
    });
    expect(attemptOutcome(finished(answered(410), { attempt: 10, failingSince: ago(DAY) }))).toMatchObject({
      kind: 'gone',
      failingSince: ago(DAY),
    });
  });

  it('disables an endpoint whose every attempt has failed for 5 days, at its next failure', () => {
    const fiveDays = 5 * DAY;
    expect(attemptOutcome(finished(answered(500), { attempt: 2, failingSince: ago(fiveDays) }))).toEqual({
      kind: 'failing',
      message: 'failed',
      failingSince: ago(fiveDays),
      disable: 'failing',
    });
    expect(attemptOutcome(finished(answered(null), { attempt: 9, failingSince: ago(fiveDays - 1) })).kind).toBe(
      'retry',
    );
    expect(attemptOutcome(finished(answered(500), { attempt: 10, failingSince: ago(6 * DAY) })).kind).toBe('failing');
    expect(attemptOutcome(finished(answered(200), { failingSince: ago(6 * DAY) })).kind).toBe('delivered');
  });

  it('refuses an attempt number that does not count from 1', () => {
    expect(() => attemptOutcome(finished(answered(500), { attempt: 0 }))).toThrow(RangeError);
    expect(() => attemptOutcome(finished(answered(500), { attempt: 1.5 }))).toThrow(RangeError);
  });
});
