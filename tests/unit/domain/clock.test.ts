import { Clock } from '../../../src/core/domain/clock';
import { TimeOutOfRange } from '../../../src/core/domain/errors';

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
    expect(clock.currentTime(later(5))).toEqual(new Date('9999-12-31T23:59:59.999Z'));
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
});
