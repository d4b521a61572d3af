import {
  assessStability as assessTallied,
  CHECK_BOUNDS,
  NAMED_BOUNDS,
  type ParadoxReason,
  type ProposedChange,
  proposedNames,
} from '../../../src/core/domain/paradox';
import { textKey } from '../../../src/core/domain/text-key';
import { tallyOf } from '../../support/tally-of';
import {
  isDisplacedDependency,
  manipulate,
  type EventKind,
  type TimelineEvent,
} from '../../../src/core/domain/timeline-event';
import { anEvent } from '../../support/builders/event-builder';

const byTimeThenId = (time: (event: TimelineEvent) => Date) => (a: TimelineEvent, b: TimelineEvent) =>
  time(a).getTime() - time(b).getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * The verdict on whole events, as a check gets it from its repository: for each proposed name the
 * tally of its events by time then id and the proposed times recorded, and the tally of the
 * displaced ones by original time then id.
 */
function assessStability({ changes, events }: { changes: readonly ProposedChange[]; events: TimelineEvent[] }) {
  const named = proposedNames(changes).map(({ name, times }) => {
    const ofName = events
      .filter((event) => textKey(event.description) === textKey(name))
      .sort(byTimeThenId((e) => e.time));
    const recorded = new Set(ofName.map((event) => event.time.getTime()));
    return { name, events: tallyOf(ofName, NAMED_BOUNDS), recordedAt: times.filter((t) => recorded.has(t.getTime())) };
  });
  const displaced = events.filter(isDisplacedDependency).sort(byTimeThenId((e) => e.originalTime));
  return assessTallied({ changes, named, displaced: tallyOf(displaced, CHECK_BOUNDS) });
}

const STABLE = { stable: true, reasons: [], reasonCount: 0, reasonCountCapped: false };
const event = (name: string, time: string): ProposedChange => ({ kind: 'event', event: name, time: new Date(time) });
const item = (itemId: string): ProposedChange => ({ kind: 'item', itemId });
const changesOnly = (changes: readonly ProposedChange[]) => assessStability({ changes, events: [] });

/** The times of an `event_at_two_times` reason; none for any other reason. */
const timesOf = (reason: ParadoxReason | undefined): readonly Date[] =>
  reason?.code === 'event_at_two_times' ? reason.times : [];

describe('assessStability', () => {
  describe('proposed changes alone', () => {
    it('finds a timeline with no proposed changes and no events stable', () => {
      expect(assessStability({ changes: [], events: [] })).toEqual(STABLE);
    });

    it('finds distinct events at distinct times stable', () => {
      const verdict = changesOnly([
        event('Eagle lands', '1969-07-20T20:17:40Z'),
        event('First step', '1969-07-21T02:56:15Z'),
      ]);
      expect(verdict).toEqual(STABLE);
    });

    it('finds the same event proposed twice at the same time stable', () => {
      const verdict = changesOnly([
        event('Eagle lands', '1969-07-20T20:17:40Z'),
        event('Eagle lands', '1969-07-20T20:17:40Z'),
      ]);
      expect(verdict).toEqual(STABLE);
    });

    it('finds the same event at two times unstable, naming the event and both times in order', () => {
      const verdict = changesOnly([
        event('Eagle lands', '1969-07-20T21:00:00Z'),
        event('Eagle lands', '1969-07-20T20:17:40Z'),
      ]);
      expect(verdict.stable).toBe(false);
      expect(verdict.reasons).toEqual([
        {
          code: 'event_at_two_times',
          message: "The event 'Eagle lands' is proposed at 2 different times; an event happens once.",
          event: 'Eagle lands',
          times: [new Date('1969-07-20T20:17:40Z'), new Date('1969-07-20T21:00:00Z')],
          eventIds: [],
          eventCount: 0,
          eventCountCapped: false,
        },
      ]);
    });

    it('compares event names ignoring case and surrounding or repeated white space', () => {
      const verdict = changesOnly([
        event('  Eagle   lands ', '1969-07-20T20:17:40Z'),
        event('EAGLE LANDS', '1969-07-20T21:00:00Z'),
      ]);
      expect(verdict.stable).toBe(false);
      expect(verdict.reasons).toHaveLength(1);
      expect(timesOf(verdict.reasons[0])).toEqual([new Date('1969-07-20T20:17:40Z'), new Date('1969-07-20T21:00:00Z')]);
    });

    it('gives one reason per event proposed at several times', () => {
      const verdict = changesOnly([
        event('Eagle lands', '1969-07-20T20:17:40Z'),
        event('Eagle lands', '1969-07-20T21:00:00Z'),
        event('Eagle lands', '1969-07-20T22:00:00Z'),
        event('First step', '1969-07-21T02:56:15Z'),
        event('First step', '1969-07-21T03:00:00Z'),
      ]);
      expect(verdict.stable).toBe(false);
      expect(verdict.reasons.map((reason) => [reason.event, timesOf(reason).length])).toEqual([
        ['Eagle lands', 3],
        ['First step', 2],
      ]);
    });

    it('is not affected by item changes', () => {
      const events = [event('Eagle lands', '1969-07-20T20:17:40Z')];
      expect(changesOnly([...events, item('itm_1'), item('itm_1'), item('itm_2')])).toEqual(changesOnly(events));
      expect(changesOnly([item('itm_1'), item('itm_1')])).toEqual(STABLE);
    });

    it('is not made stable by item changes either', () => {
      const verdict = changesOnly([
        event('Eagle lands', '1969-07-20T20:17:40Z'),
        item('itm_1'),
        event('Eagle lands', '1969-07-20T21:00:00Z'),
      ]);
      expect(verdict.stable).toBe(false);
    });
  });

  describe('event_at_two_times against recorded events', () => {
    const landing = anEvent({
      id: 'evt_7',
      kind: 'arrival',
      description: 'Eagle lands',
      time: new Date('1969-07-20T20:17:40Z'),
      originalTime: new Date('1969-07-20T20:17:40Z'),
      subjectId: 'trv_1',
    });

    it('finds a proposed time that disagrees with the recorded event unstable, naming the recorded event', () => {
      const verdict = assessStability({ changes: [event('Eagle lands', '1969-07-20T21:00:00Z')], events: [landing] });
      expect(verdict.stable).toBe(false);
      expect(verdict.reasons).toEqual([
        {
          code: 'event_at_two_times',
          message:
            "The event 'Eagle lands' is proposed at a time it is not recorded at: the proposed changes disagree " +
            'with the recorded event. An event happens once; propose the recorded time, or manipulate the event first.',
          event: 'Eagle lands',
          times: [new Date('1969-07-20T20:17:40Z'), new Date('1969-07-20T21:00:00Z')],
          eventIds: ['evt_7'],
          eventCount: 1,
          eventCountCapped: false,
        },
      ]);
    });

    it('compares the proposed name with the recorded one by textKey', () => {
      const verdict = assessStability({
        changes: [event('  eagle\tLANDS ', '1969-07-20T21:00:00Z')],
        events: [landing],
      });
      expect(verdict.reasons).toMatchObject([
        { code: 'event_at_two_times', event: 'eagle\tLANDS', eventIds: ['evt_7'] },
      ]);
    });

    it('finds a proposed time equal to the recorded time stable', () => {
      expect(assessStability({ changes: [event('EAGLE LANDS', '1969-07-20T20:17:40Z')], events: [landing] })).toEqual(
        STABLE,
      );
    });

    it('ignores recorded events of other names', () => {
      const other = anEvent({ id: 'evt_8', description: 'First step', subjectId: null });
      expect(assessStability({ changes: [event('Eagle lands', '1969-07-20T20:17:40Z')], events: [other] }).stable).toBe(
        true,
      );
    });

    it('compares with the time the recorded event has now, after a manipulation', () => {
      const moved = manipulate(landing, {
        id: 'man_1',
        action: 'Delay the landing',
        time: new Date('1969-07-20T21:00:00Z'),
        now: new Date('2030-01-01T12:00:00Z'),
      }).event;
      const verdict = assessStability({ changes: [event('Eagle lands', '1969-07-20T21:00:00Z')], events: [moved] });
      // The proposed time agrees with the event's current time; what remains is its displacement.
      expect(verdict.reasons.map((reason) => reason.code)).toEqual(['event_displaced']);
    });
  });

  describe('event_displaced', () => {
    const originalTime = new Date('1969-07-20T21:00:00Z');
    const movedTo = new Date('1969-07-20T22:00:00Z');

    it('finds a recorded event with a dependent, moved away from its original time, unstable', () => {
      const displaced = anEvent({ id: 'evt_3', subjectId: 'itm_1', time: movedTo, revision: 1 });
      const verdict = assessStability({ changes: [], events: [displaced] });
      expect(verdict).toEqual({
        stable: false,
        reasonCount: 1,
        reasonCountCapped: false,
        reasons: [
          {
            code: 'event_displaced',
            message:
              "The event 'Item retrieved: A moon rock' was moved by manipulation from 1969-07-20T21:00:00Z " +
              'to 1969-07-20T22:00:00Z, but itm_1 depends on it happening when it first did. ' +
              'Manipulate it back to its original time to restore the timeline.',
            event: 'Item retrieved: A moon rock',
            eventId: 'evt_3',
            originalTime,
            time: movedTo,
            dependentId: 'itm_1',
          },
        ],
      });
    });

    const dependents: ReadonlyArray<[EventKind, string]> = [
      ['arrival', 'trv_1'],
      ['anchor_set', 'anc_1'],
      ['item_retrieved', 'itm_1'],
    ];

    it.each(dependents)('applies to a displaced %s event', (kind, subjectId) => {
      const displaced = anEvent({ kind, subjectId, time: movedTo, revision: 1 });
      expect(assessStability({ changes: [], events: [displaced] }).reasons).toMatchObject([
        { code: 'event_displaced', dependentId: subjectId },
      ]);
    });

    it('lets an event without a dependent (a manipulation record) move freely', () => {
      const record = anEvent({ kind: 'manipulation', subjectId: null, time: movedTo, revision: 1 });
      expect(assessStability({ changes: [], events: [record] })).toEqual(STABLE);
    });

    it('finds an event with a dependent still at its original time stable, even after a manipulation', () => {
      const manipulatedInPlace = anEvent({ subjectId: 'itm_1', revision: 2 });
      expect(assessStability({ changes: [], events: [manipulatedInPlace] })).toEqual(STABLE);
    });

    it('is stable again once a manipulation moves the event back to its original time', () => {
      const now = new Date('2030-01-01T12:00:00Z');
      const away = manipulate(anEvent(), { id: 'man_1', action: 'Delay the find', time: movedTo, now });
      expect(assessStability({ changes: [], events: [away.event] }).stable).toBe(false);

      const back = manipulate(away.event, { id: 'man_2', action: 'Undo the delay', time: originalTime, now });

      expect(back.event).toMatchObject({ time: originalTime, originalTime, revision: 2 });
      expect(assessStability({ changes: [], events: [back.event] })).toEqual(STABLE);
    });
  });

  describe('order of reasons', () => {
    const displaced = (id: string, originalTime: string) =>
      anEvent({
        id,
        subjectId: `itm_${id}`,
        originalTime: new Date(originalTime),
        time: new Date('1970-01-01T00:00:00Z'),
        revision: 1,
      });
    const early = displaced('evt_b', '1969-07-20T20:00:00Z');
    const lateB = displaced('evt_b2', '1969-07-20T23:00:00Z');
    const lateA = displaced('evt_a2', '1969-07-20T23:00:00Z');
    const changes = [
      event('First step', '1969-07-21T02:56:15Z'),
      event('Eagle lands', '1969-07-20T20:17:40Z'),
      event('First step', '1969-07-21T03:00:00Z'),
      event('Eagle lands', '1969-07-20T21:00:00Z'),
    ];

    it('puts conflicting proposals first (in proposal order), then displaced events by original time and id', () => {
      const verdict = assessStability({ changes, events: [lateB, early, lateA] });
      expect(
        verdict.reasons.map((reason) => [
          reason.code,
          reason.event,
          reason.code === 'event_displaced' ? reason.eventId : null,
        ]),
      ).toEqual([
        ['event_at_two_times', 'First step', null],
        ['event_at_two_times', 'Eagle lands', null],
        ['event_displaced', early.description, 'evt_b'],
        ['event_displaced', lateA.description, 'evt_a2'],
        ['event_displaced', lateB.description, 'evt_b2'],
      ]);
    });

    it('gives the same verdict whatever the order in which the events are found', () => {
      const one = assessStability({ changes, events: [lateB, early, lateA] });
      const other = assessStability({ changes, events: [lateA, lateB, early] });
      expect(other).toEqual(one);
    });

    it('lists the recorded event ids of a conflict by time, whatever the order found', () => {
      const first = anEvent({
        id: 'evt_2',
        description: 'Eagle lands',
        time: new Date('1969-07-20T20:17:40Z'),
        originalTime: new Date('1969-07-20T20:17:40Z'),
      });
      const second = anEvent({
        id: 'evt_10',
        description: 'eagle lands',
        time: new Date('1969-07-20T20:30:00Z'),
        originalTime: new Date('1969-07-20T20:30:00Z'),
      });
      const verdict = assessStability({
        changes: [event('Eagle lands', '1969-07-20T21:00:00Z')],
        events: [first, second],
      });
      expect(verdict.reasons).toMatchObject([{ code: 'event_at_two_times', eventIds: ['evt_2', 'evt_10'] }]);
      expect(
        assessStability({ changes: [event('Eagle lands', '1969-07-20T21:00:00Z')], events: [second, first] }),
      ).toEqual(verdict);
    });

    it('agrees with history when a name the service recorded twice is proposed at one of its times', () => {
      const first = anEvent({
        id: 'evt_1',
        description: 'Traveller arrives at Moon',
        time: new Date('1969-07-20T20:17:40Z'),
        originalTime: new Date('1969-07-20T20:17:40Z'),
      });
      const again = anEvent({
        id: 'evt_2',
        description: 'Traveller arrives at Moon',
        time: new Date('1969-07-20T20:18:40Z'),
        originalTime: new Date('1969-07-20T20:18:40Z'),
      });
      const verdict = assessStability({
        changes: [event('Traveller arrives at Moon', '1969-07-20T20:17:40Z')],
        events: [first, again],
      });
      expect(verdict).toEqual(STABLE);
    });
  });

  describe('a name recorded more often than a check reads', () => {
    const arrivals = Array.from({ length: NAMED_BOUNDS.counted + 5 }, (_, n) =>
      anEvent({
        id: `evt_${String(n).padStart(3, '0')}`,
        description: 'Traveller arrives at Moon',
        time: new Date(Date.UTC(1969, 6, 20, 20, n)),
        originalTime: new Date(Date.UTC(1969, 6, 20, 20, n)),
      }),
    );

    it('lists the first recorded events and their times, and says the count stopped at its bound', () => {
      const proposed = new Date(Date.UTC(1969, 6, 19));
      const verdict = assessStability({
        changes: [event('Traveller arrives at Moon', proposed.toISOString())],
        events: arrivals,
      });
      const listed = arrivals.slice(0, NAMED_BOUNDS.listed);
      expect(verdict.reasons).toEqual([
        expect.objectContaining({
          code: 'event_at_two_times',
          eventIds: listed.map((arrival) => arrival.id),
          times: [proposed, ...listed.map((arrival) => arrival.time)],
          eventCount: NAMED_BOUNDS.counted,
          eventCountCapped: true,
        }),
      ]);
    });

    it('agrees with history at a recorded time past the listed and the counted ones', () => {
      const last = arrivals[arrivals.length - 1];
      const verdict = assessStability({
        changes: [event('Traveller arrives at Moon', last.time.toISOString())],
        events: arrivals,
      });
      expect(verdict).toEqual(STABLE);
    });
  });

  describe('a tally of displaced events', () => {
    const displaced = (n: number) =>
      anEvent({
        id: `evt_${String(n).padStart(4, '0')}`,
        subjectId: `itm_${n}`,
        time: new Date('1970-01-01T00:00:00Z'),
        revision: 1,
      });
    const conflicts = [event('Eagle lands', '1969-07-20T20:17:40Z'), event('Eagle lands', '1969-07-20T21:00:00Z')];

    it('counts the conflicts of proposals and the displaced events, and lists the first', () => {
      const first = [displaced(1), displaced(2)];
      const verdict = assessTallied({
        changes: conflicts,
        named: [],
        displaced: { first, count: 250, capped: false },
      });
      expect(verdict).toMatchObject({ stable: false, reasonCount: 251, reasonCountCapped: false });
      expect(verdict.reasons.map((reason) => reason.code)).toEqual([
        'event_at_two_times',
        'event_displaced',
        'event_displaced',
      ]);
    });

    it('lists at most CHECK_BOUNDS.listed reasons, the proposals first', () => {
      const first = Array.from({ length: CHECK_BOUNDS.listed }, (_, n) => displaced(n));
      const verdict = assessTallied({
        changes: conflicts,
        named: [],
        displaced: { first, count: CHECK_BOUNDS.listed, capped: false },
      });
      expect(verdict.reasons).toHaveLength(CHECK_BOUNDS.listed);
      expect(verdict.reasons[0]?.code).toBe('event_at_two_times');
      expect(verdict.reasonCount).toBe(CHECK_BOUNDS.listed + 1);
    });

    it('says when the count stopped at its bound', () => {
      const verdict = assessTallied({
        changes: [],
        named: [],
        displaced: { first: [displaced(1)], count: CHECK_BOUNDS.counted, capped: true },
      });
      expect(verdict).toMatchObject({ stable: false, reasonCount: CHECK_BOUNDS.counted, reasonCountCapped: true });
    });

    it('decides by the count, not by what is listed', () => {
      expect(assessTallied({ changes: [], named: [], displaced: { first: [], count: 1, capped: false } }).stable).toBe(
        false,
      );
      expect(assessTallied({ changes: [], named: [], displaced: { first: [], count: 0, capped: false } })).toEqual(
        STABLE,
      );
    });
  });
});
