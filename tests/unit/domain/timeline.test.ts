import { DEFAULT_WINDOW_MINUTES, PRIMARY_TIMELINE_ID, Timeline } from '../../../src/core/domain/timeline';
import { aTimeline, thePrimaryTimeline } from '../../support/builders/timeline-builder';

const createdAt = new Date('2030-01-01T12:00:00Z');
const minutesAfterCreation = (minutes: number) => new Date(createdAt.getTime() + minutes * 60_000);

describe('Timeline', () => {
  it('is created open, with its destination and window, at the moment of creation', () => {
    const timeline = Timeline.create({
      accountId: 'acc_1',
      id: 'tml_1',
      name: 'Moon landing',
      destinationTime: new Date('1969-07-20T20:17:40Z'),
      windowMinutes: DEFAULT_WINDOW_MINUTES,
      now: createdAt,
    });
    expect(timeline).toMatchObject({
      id: 'tml_1',
      name: 'Moon landing',
      status: 'open',
      windowMinutes: 12,
      createdAt,
      destinationTime: new Date('1969-07-20T20:17:40Z'),
    });
    expect(timeline.isPrimary).toBe(false);
  });

  it('has a default window of 12 minutes, as the spec shows', () => {
    expect(DEFAULT_WINDOW_MINUTES).toBe(12);
  });

  it('has its deadline one window after its creation', () => {
    const timeline = aTimeline().createdAt(createdAt).withWindowMinutes(12).build();
    expect(timeline.deadline).toEqual(new Date('2030-01-01T12:12:00Z'));
  });

  it('keeps its window open up to and including the deadline', () => {
    const timeline = aTimeline().createdAt(createdAt).withWindowMinutes(12).build();
    expect(timeline.windowHasPassed(minutesAfterCreation(12))).toBe(false);
    expect(timeline.windowHasPassed(new Date(minutesAfterCreation(12).getTime() + 1))).toBe(true);
  });

  it('counts its window from created_at cut to the second, as answered: the deadline shown is the rule', () => {
    const lateInASecond = aTimeline().createdAt(new Date('2030-01-01T12:00:00.999Z')).withWindowMinutes(12).build();
    const shownDeadline = new Date('2030-01-01T12:12:00Z');
    expect(lateInASecond.deadline).toEqual(shownDeadline);
    expect(lateInASecond.windowHasPassed(shownDeadline)).toBe(false);
    expect(lateInASecond.statusAt(shownDeadline)).toBe('open');
    expect(lateInASecond.windowHasPassed(new Date('2030-01-01T12:12:00.001Z'))).toBe(true);
    expect(lateInASecond.statusAt(new Date('2030-01-01T12:12:00.001Z'))).toBe('expired');
  });

  describe('statusAt', () => {
    it.each(['open', 'active'] as const)('reads an %s timeline as expired once its window has passed', (status) => {
      const timeline = aTimeline().createdAt(createdAt).withStatus(status).build();
      expect(timeline.statusAt(minutesAfterCreation(11))).toBe(status);
      expect(timeline.statusAt(minutesAfterCreation(13))).toBe('expired');
    });

    it('reads a completed timeline as completed long after its window', () => {
      const timeline = aTimeline().createdAt(createdAt).withStatus('completed').build();
      expect(timeline.statusAt(minutesAfterCreation(60 * 24 * 365))).toBe('completed');
    });

    it('reads an expired timeline as expired', () => {
      const timeline = aTimeline().createdAt(createdAt).withStatus('expired').build();
      expect(timeline.statusAt(minutesAfterCreation(1))).toBe('expired');
    });
  });

  describe('primary', () => {
    const primary = thePrimaryTimeline(createdAt);

    it('is open, with no destination, no window and no deadline', () => {
      expect(primary).toMatchObject({
        id: PRIMARY_TIMELINE_ID,
        status: 'open',
        destinationTime: null,
        windowMinutes: null,
      });
      expect(primary.isPrimary).toBe(true);
      expect(primary.deadline).toBeNull();
    });

    it('never expires', () => {
      const aThousandYearsLater = new Date('3030-01-01T00:00:00Z');
      expect(primary.windowHasPassed(aThousandYearsLater)).toBe(false);
      expect(primary.statusAt(aThousandYearsLater)).toBe('open');
    });
  });

  describe('settledAt', () => {
    it('stores the status as of now', () => {
      const settled = aTimeline().createdAt(createdAt).withStatus('active').build().settledAt(minutesAfterCreation(20));
      expect(settled.status).toBe('expired');
    });

    it('returns the same timeline when nothing changes', () => {
      const timeline = aTimeline().createdAt(createdAt).build();
      expect(timeline.settledAt(minutesAfterCreation(1))).toBe(timeline);
    });
  });

  it('changes status without changing the original or any other field', () => {
    const timeline = aTimeline().build();
    const active = timeline.withStatus('active');
    expect(timeline.status).toBe('open');
    expect(active).toEqual({ ...timeline, status: 'active' });
    expect(active).toBeInstanceOf(Timeline);
  });
});
