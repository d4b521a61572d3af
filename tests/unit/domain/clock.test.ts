import { Clock } from '../../../src/core/domain/clock';
import { ClockAlreadyPaused, ClockAlreadyRunning, TimeOutOfRange } from '../../../src/core/domain/errors';

const MINUTE = 60_000;
const start = new Date('2030-01-01T12:00:00Z');
const later = (minutes: number) => new Date(start.getTime() + minutes * MINUTE);

describe('Clock', () => {
  it('starts running, showing the present', () => {
    const clock = Clock.startingAt(start);
    expect(clock.paused).toBe(false);
    expect(clock.currentTime(start)).toEqual(start);
  });

  it('advances with the wall clock while running', () => {
    const clock = Clock.startingAt(start);
    expect(clock.currentTime(later(5))).toEqual(later(5));
  });

  it('holds still while paused', () => {
    const clock = Clock.restore({ reading: start, readAt: start, paused: true });
    expect(clock.currentTime(later(30))).toEqual(start);
  });

  it('stops at the end of year 9999 instead of running past it', () => {
    const nearEnd = new Date('9999-12-31T23:59:00Z');
    const clock = Clock.startingAt(start).setTo(nearEnd, start);
    expect(clock.currentTime(later(5))).toEqual(new Date('9999-12-31T23:59:59Z'));
  });

  it('loses no wall time when shifted more often than once a second', () => {
    let clock = Clock.startingAt(start);
    for (let n = 1; n <= 20; n += 1) clock = clock.shiftBy(MINUTE, new Date(start.getTime() + n * 700));
    // 20 shifts of a minute plus the 14 s of wall time they were spread over.
    expect(clock.currentTime(new Date(start.getTime() + 14_000))).toEqual(
      new Date(start.getTime() + 20 * MINUTE + 14_000),
    );
  });

  describe('setTo', () => {
    const past = new Date('1969-07-20T20:17:40Z');

    it('runs on from the time set when it was running', () => {
      const clock = Clock.startingAt(start).setTo(past, later(10));
      expect(clock.paused).toBe(false);
      expect(clock.currentTime(later(12))).toEqual(new Date(past.getTime() + 2 * MINUTE));
    });

    it('stays paused at the time set when it was paused', () => {
      const clock = Clock.restore({ reading: start, readAt: start, paused: true }).setTo(past, later(10));
      expect(clock.paused).toBe(true);
      expect(clock.currentTime(later(60))).toEqual(past);
    });

    it('refuses a time outside years 0001-9999', () => {
      const clock = Clock.startingAt(start);
      expect(() => clock.setTo(new Date(Date.UTC(10000, 0, 1)), start)).toThrow(TimeOutOfRange);
    });
  });

  describe('shiftBy', () => {
    it('fast-forwards from the current reading', () => {
      const clock = Clock.startingAt(start).shiftBy(60 * MINUTE, later(5));
      expect(clock.currentTime(later(5))).toEqual(later(65));
    });

    it('rewinds with a negative duration and keeps running', () => {
      const clock = Clock.startingAt(start).shiftBy(-24 * 60 * MINUTE, start);
      expect(clock.paused).toBe(false);
      expect(clock.currentTime(later(1))).toEqual(new Date('2029-12-31T12:01:00Z'));
    });

    it('keeps a paused clock paused', () => {
      const clock = Clock.restore({ reading: start, readAt: start, paused: true }).shiftBy(MINUTE, later(30));
      expect(clock.paused).toBe(true);
      expect(clock.currentTime(later(90))).toEqual(later(1));
    });

    it('refuses to move past year 9999 with TimeOutOfRange', () => {
      const nearEnd = Clock.restore({ reading: new Date('9999-12-31T23:00:00Z'), readAt: start, paused: true });
      expect(() => nearEnd.shiftBy(2 * 60 * MINUTE, start)).toThrow(TimeOutOfRange);
    });

    it('refuses to move before year 0001 with TimeOutOfRange', () => {
      const nearStart = Clock.restore({ reading: new Date('0001-01-01T01:00:00Z'), readAt: start, paused: true });
      expect(() => nearStart.shiftBy(-2 * 60 * MINUTE, start)).toThrow(TimeOutOfRange);
    });

    it('leaves the original clock untouched when refused', () => {
      const nearEnd = Clock.restore({ reading: new Date('9999-12-31T23:00:00Z'), readAt: start, paused: true });
      expect(() => nearEnd.shiftBy(2 * 60 * MINUTE, start)).toThrow(TimeOutOfRange);
      expect(nearEnd.currentTime(later(5))).toEqual(new Date('9999-12-31T23:00:00Z'));
    });
  });

  describe('pause', () => {
    it('holds the clock at its reading at the moment of pausing', () => {
      const paused = Clock.startingAt(start).pause(later(10));
      expect(paused.paused).toBe(true);
      expect(paused.currentTime(later(10))).toEqual(later(10));
      expect(paused.currentTime(later(70))).toEqual(later(10));
    });

    it('refuses a paused clock with ClockAlreadyPaused, leaving it as it was', () => {
      const paused = Clock.startingAt(start).pause(later(10));
      expect(() => paused.pause(later(20))).toThrow(ClockAlreadyPaused);
      expect(paused).toEqual(Clock.restore({ reading: later(10), readAt: later(10), paused: true }));
      expect(paused.currentTime(later(30))).toEqual(later(10));
    });
  });

  describe('resume', () => {
    it('continues from the exact moment of pausing, however long the pause', () => {
      const paused = Clock.startingAt(start).pause(later(10));
      const resumed = paused.resume(later(70));
      expect(resumed.paused).toBe(false);
      expect(resumed.currentTime(later(70))).toEqual(later(10));
      expect(resumed.currentTime(later(75))).toEqual(later(15));
    });

    it('reads in whole seconds, as the API reports time', () => {
      const paused = Clock.startingAt(start).pause(new Date(start.getTime() + 1_234));
      expect(paused.resume(later(60)).currentTime(later(60))).toEqual(new Date(start.getTime() + 1_000));
    });

    it('refuses a running clock with ClockAlreadyRunning, leaving it as it was', () => {
      const running = Clock.startingAt(start);
      expect(() => running.resume(later(5))).toThrow(ClockAlreadyRunning);
      expect(running).toEqual(Clock.startingAt(start));
      expect(running.currentTime(later(5))).toEqual(later(5));
    });

    it('continues from a time set while paused', () => {
      const past = new Date('1969-07-20T20:17:40Z');
      const resumed = Clock.startingAt(start).pause(later(1)).setTo(past, later(2)).resume(later(30));
      expect(resumed.currentTime(later(31))).toEqual(new Date(past.getTime() + MINUTE));
    });
  });

  it('stays paused when shifted while paused, at the shifted reading', () => {
    const shifted = Clock.startingAt(start)
      .pause(later(10))
      .shiftBy(-60 * MINUTE, later(20));
    expect(shifted.paused).toBe(true);
    expect(shifted.currentTime(later(90))).toEqual(later(-50));
    expect(shifted.resume(later(100)).currentTime(later(101))).toEqual(later(-49));
  });
});
