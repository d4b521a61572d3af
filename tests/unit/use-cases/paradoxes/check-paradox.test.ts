import { TimelineNotFound, UnknownEvent, UnknownItems } from '../../../../src/core/domain/errors';
import type { EventKind, TimelineEvent } from '../../../../src/core/domain/timeline-event';
import { TimeRange } from '../../../../src/core/domain/time-range';
import { anAccount } from '../../../support/builders/account-mother';
import { aJourneyUnderWay, DESTINATION_TIME } from '../../../support/builders/journey-mother';
import { createTestCore, type TestCore } from '../../../support/builders/test-core';

const oneHourLater = new Date(DESTINATION_TIME.getTime() + 3_600_000);
const FOUND_AT = new Date('1969-07-20T21:00:00Z');

async function aTravellerWithAnItem() {
  const core = createTestCore();
  const accountId = await anAccount(core);
  const { timeline } = await aJourneyUnderWay(core, accountId);
  const { item } = await core.registerItem.execute({ accountId, description: 'A moon rock', foundAt: FOUND_AT });
  return { core, accountId, timeline, item };
}

/** The account's only recorded event of this kind on the timeline. */
function theEvent(core: TestCore, accountId: string, timelineId: string, kind: EventKind): TimelineEvent {
  const found = core.database
    .eventsOf(accountId)
    .filter((event) => event.timelineId === timelineId && event.kind === kind);
  const [only] = found;
  if (found.length !== 1 || !only)
    throw new Error(`expected one ${kind} event on ${timelineId}, found ${found.length}`);
  return only;
}

describe('CheckParadox', () => {
  it('finds a timeline with no proposed changes stable', async () => {
    const { core, accountId, timeline } = await aTravellerWithAnItem();
    expect(await core.checkParadox.execute({ accountId, timelineId: timeline.id, proposedChanges: [] })).toEqual({
      stable: true,
      reasons: [],
      reasonCount: 0,
      reasonCountCapped: false,
      significantEvent: null,
    });
  });

  it('finds a known item and a single event time stable', async () => {
    const { core, accountId, timeline, item } = await aTravellerWithAnItem();
    const verdict = await core.checkParadox.execute({
      accountId,
      timelineId: timeline.id,
      proposedChanges: [
        { kind: 'event', event: 'Eagle lands', time: DESTINATION_TIME },
        { kind: 'item', itemId: item.id },
      ],
    });
    expect(verdict).toMatchObject({ stable: true, reasons: [] });
  });

  it('finds one event at two times unstable, with the reason', async () => {
    const { core, accountId, timeline } = await aTravellerWithAnItem();
    const verdict = await core.checkParadox.execute({
      accountId,
      timelineId: timeline.id,
      proposedChanges: [
        { kind: 'event', event: 'Eagle lands', time: oneHourLater },
        { kind: 'event', event: 'eagle LANDS', time: DESTINATION_TIME },
      ],
    });
    expect(verdict.stable).toBe(false);
    expect(verdict.reasons).toMatchObject([
      { code: 'event_at_two_times', event: 'Eagle lands', times: [DESTINATION_TIME, oneHourLater] },
    ]);
  });

  it('checks the primary timeline too', async () => {
    const { core, accountId } = await aTravellerWithAnItem();
    const verdict = await core.checkParadox.execute({ accountId, timelineId: 'primary', proposedChanges: [] });
    expect(verdict.stable).toBe(true);
  });

  it('refuses an unknown timeline with TimelineNotFound', async () => {
    const { core, accountId } = await aTravellerWithAnItem();
    await expect(core.checkParadox.execute({ accountId, timelineId: 'tml_404', proposedChanges: [] })).rejects.toEqual(
      new TimelineNotFound('tml_404'),
    );
  });

  it("refuses another account's timeline with TimelineNotFound", async () => {
    const { core, timeline } = await aTravellerWithAnItem();
    const stranger = await anAccount(core);
    await expect(
      core.checkParadox.execute({ accountId: stranger, timelineId: timeline.id, proposedChanges: [] }),
    ).rejects.toBeInstanceOf(TimelineNotFound);
  });

  it('refuses unknown items with UnknownItems naming each offending id once, whatever the events', async () => {
    const { core, accountId, timeline, item } = await aTravellerWithAnItem();
    let refusal: unknown;
    try {
      await core.checkParadox.execute({
        accountId,
        timelineId: timeline.id,
        proposedChanges: [
          { kind: 'item', itemId: 'itm_404' },
          { kind: 'item', itemId: item.id },
          { kind: 'event', event: 'Eagle lands', time: DESTINATION_TIME },
          { kind: 'item', itemId: 'itm_404' },
        ],
      });
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(UnknownItems);
    expect(refusal).toMatchObject({ details: { item_ids: ['itm_404'] } });
  });

  it("refuses another account's item as unknown", async () => {
    const { core, item } = await aTravellerWithAnItem();
    const stranger = await anAccount(core);
    await expect(
      core.checkParadox.execute({
        accountId: stranger,
        timelineId: 'primary',
        proposedChanges: [{ kind: 'item', itemId: item.id }],
      }),
    ).rejects.toEqual(new UnknownItems([item.id]));
  });

  it('stores nothing', async () => {
    const { core, accountId, timeline, item } = await aTravellerWithAnItem();
    const before = core.database.contents();
    await core.checkParadox.execute({
      accountId,
      timelineId: timeline.id,
      proposedChanges: [
        { kind: 'event', event: 'Eagle lands', time: DESTINATION_TIME },
        { kind: 'event', event: 'Eagle lands', time: oneHourLater },
        { kind: 'item', itemId: item.id },
      ],
    });
    expect(core.database.contents()).toEqual(before);
  });

  describe('against recorded events', () => {
    it('finds a proposed change that disagrees with a recorded event unstable, naming the recorded event', async () => {
      const { core, accountId, timeline } = await aTravellerWithAnItem();
      const retrieval = theEvent(core, accountId, timeline.id, 'item_retrieved');

      const verdict = await core.checkParadox.execute({
        accountId,
        timelineId: timeline.id,
        proposedChanges: [{ kind: 'event', event: ' item RETRIEVED:  a moon rock', time: oneHourLater }],
      });

      expect(verdict.stable).toBe(false);
      expect(verdict.reasons).toMatchObject([
        { code: 'event_at_two_times', times: [FOUND_AT, oneHourLater], eventIds: [retrieval.id] },
      ]);
      expect(verdict.reasonCount).toBe(1);
    });

    it('finds a proposed change at the recorded time stable', async () => {
      const { core, accountId, timeline } = await aTravellerWithAnItem();
      const verdict = await core.checkParadox.execute({
        accountId,
        timelineId: timeline.id,
        proposedChanges: [{ kind: 'event', event: 'Item retrieved: A moon rock', time: FOUND_AT }],
      });
      expect(verdict).toMatchObject({ stable: true, reasons: [] });
    });

    it('does not compare with events of another timeline of the account', async () => {
      const { core, accountId } = await aTravellerWithAnItem();
      const verdict = await core.checkParadox.execute({
        accountId,
        timelineId: 'primary',
        proposedChanges: [{ kind: 'event', event: 'Item retrieved: A moon rock', time: oneHourLater }],
      });
      expect(verdict).toMatchObject({ stable: true, reasons: [], reasonCount: 0 });
    });
  });

  describe('displaced events (event_displaced)', () => {
    async function aJourneyWithEveryKindOfEvent() {
      const { core, accountId, timeline, item } = await aTravellerWithAnItem();
      const anchor = await core.createAnchor.execute({
        accountId,
        description: 'Touchdown',
        timestamp: new Date('1969-07-20T20:30:00Z'),
      });
      return { core, accountId, timeline, item, anchor };
    }

    const dependentKinds: ReadonlyArray<[EventKind, string]> = [
      ['arrival', 'the travel'],
      ['anchor_set', 'the anchor'],
      ['item_retrieved', 'the item'],
    ];

    it.each(dependentKinds)(
      'finds the timeline unstable once an %s event is moved, naming %s that depends on it',
      async (kind) => {
        const { core, accountId, timeline } = await aJourneyWithEveryKindOfEvent();
        const event = theEvent(core, accountId, timeline.id, kind);
        expect((await core.checkParadox.execute({ accountId, timelineId: timeline.id })).stable).toBe(true);

        await core.manipulateEvent.execute({ accountId, eventId: event.id, action: 'Nudge it', time: oneHourLater });
        const verdict = await core.checkParadox.execute({ accountId, timelineId: timeline.id });

        expect(verdict.stable).toBe(false);
        expect(verdict.reasons).toEqual([
          expect.objectContaining({
            code: 'event_displaced',
            eventId: event.id,
            originalTime: event.time,
            time: oneHourLater,
            dependentId: event.subjectId,
          }),
        ]);
      },
    );

    it('finds it stable again once the event is manipulated back to its original time', async () => {
      const { core, accountId, timeline } = await aJourneyWithEveryKindOfEvent();
      const event = theEvent(core, accountId, timeline.id, 'item_retrieved');
      await core.manipulateEvent.execute({
        accountId,
        eventId: event.id,
        action: 'Delay the find',
        time: oneHourLater,
      });

      await core.manipulateEvent.execute({
        accountId,
        eventId: event.id,
        action: 'Undo the delay',
        time: event.originalTime,
      });

      expect(await core.checkParadox.execute({ accountId, timelineId: timeline.id })).toMatchObject({
        stable: true,
        reasons: [],
      });
    });

    it('lets a manipulation record be moved freely', async () => {
      const { core, accountId, timeline } = await aJourneyWithEveryKindOfEvent();
      const retrieval = theEvent(core, accountId, timeline.id, 'item_retrieved');
      await core.manipulateEvent.execute({
        accountId,
        eventId: retrieval.id,
        action: 'Polish the rock',
        time: retrieval.time,
      });
      const record = theEvent(core, accountId, timeline.id, 'manipulation');

      await core.manipulateEvent.execute({
        accountId,
        eventId: record.id,
        action: 'Forget it happened',
        time: oneHourLater,
      });

      expect(await core.checkParadox.execute({ accountId, timelineId: timeline.id })).toMatchObject({
        stable: true,
        reasons: [],
      });
    });

    describe('within a monitored range', () => {
      async function aDisplacedRetrieval() {
        const setup = await aJourneyWithEveryKindOfEvent();
        const { core, accountId, timeline } = setup;
        const retrieval = theEvent(core, accountId, timeline.id, 'item_retrieved');
        // Found at 21:00, moved to 22:00.
        await core.manipulateEvent.execute({
          accountId,
          eventId: retrieval.id,
          action: 'Delay the find',
          time: new Date('1969-07-20T22:00:00Z'),
        });
        return { ...setup, retrieval };
      }

      it.each([
        ['its current time', '1969-07-20T21:30:00Z/1969-07-20T22:00:00Z'],
        ['its original time', '1969-07-20T20:00:00Z/1969-07-20T21:00:00Z'],
      ])('sees a displaced event whose %s is in range', async (_label, range) => {
        const { core, accountId, timeline, retrieval } = await aDisplacedRetrieval();
        const verdict = await core.checkParadox.execute({
          accountId,
          timelineId: timeline.id,
          range: TimeRange.parse(range),
        });
        expect(verdict.stable).toBe(false);
        expect(verdict.reasons).toMatchObject([{ code: 'event_displaced', eventId: retrieval.id }]);
      });

      it('ignores a displaced event whose times are both outside the range', async () => {
        const { core, accountId, timeline } = await aDisplacedRetrieval();
        const verdict = await core.checkParadox.execute({
          accountId,
          timelineId: timeline.id,
          range: TimeRange.parse('1969-07-20T21:00:01Z/1969-07-20T21:59:59Z'),
        });
        expect(verdict).toMatchObject({ stable: true, reasons: [], reasonCount: 0 });
      });
    });
  });

  describe('with a significant event', () => {
    it('checks the event found by id with the whole timeline, so it never disagrees with the others', async () => {
      const { core, accountId, timeline } = await aTravellerWithAnItem();
      const arrival = theEvent(core, accountId, timeline.id, 'arrival');
      const retrieval = theEvent(core, accountId, timeline.id, 'item_retrieved');
      const calm = await core.checkParadox.execute({
        accountId,
        timelineId: timeline.id,
        significantEvent: arrival.id,
      });
      expect(calm).toEqual({
        stable: true,
        reasons: [],
        reasonCount: 0,
        reasonCountCapped: false,
        significantEvent: arrival,
      });

      await core.manipulateEvent.execute({
        accountId,
        eventId: retrieval.id,
        action: 'Delay the find',
        time: oneHourLater,
      });
      const verdict = await core.checkParadox.execute({
        accountId,
        timelineId: timeline.id,
        significantEvent: arrival.id,
      });

      expect(verdict.significantEvent).toEqual(arrival);
      expect(verdict.stable).toBe(false);
      expect(verdict.reasons).toEqual([expect.objectContaining({ code: 'event_displaced', eventId: retrieval.id })]);
    });

    it('finds the event by name, ignoring case and extra white space', async () => {
      const { core, accountId, timeline } = await aTravellerWithAnItem();
      const retrieval = theEvent(core, accountId, timeline.id, 'item_retrieved');
      await core.manipulateEvent.execute({
        accountId,
        eventId: retrieval.id,
        action: 'Delay the find',
        time: oneHourLater,
      });

      const verdict = await core.checkParadox.execute({
        accountId,
        timelineId: timeline.id,
        significantEvent: '  ITEM retrieved:   a moon rock ',
      });

      expect(verdict.significantEvent?.id).toBe(retrieval.id);
      expect(verdict.stable).toBe(false);
      expect(verdict.reasons).toMatchObject([{ code: 'event_displaced', eventId: retrieval.id }]);
    });

    it('refuses an event that is not recorded with UnknownEvent', async () => {
      const { core, accountId, timeline } = await aTravellerWithAnItem();
      await expect(
        core.checkParadox.execute({ accountId, timelineId: timeline.id, significantEvent: 'Eagle lands' }),
      ).rejects.toEqual(new UnknownEvent(timeline.id, 'Eagle lands'));
    });

    it("refuses the id of an event on another of the account's timelines with UnknownEvent", async () => {
      const { core, accountId, timeline } = await aTravellerWithAnItem();
      const anchorAtHome = core.database
        .eventsOf(accountId)
        .find((event) => event.timelineId === 'primary' && event.kind === 'anchor_set');
      expect(anchorAtHome).toBeDefined();
      const eventId = anchorAtHome?.id ?? '';

      await expect(
        core.checkParadox.execute({ accountId, timelineId: timeline.id, significantEvent: eventId }),
      ).rejects.toEqual(new UnknownEvent(timeline.id, eventId));
    });

    it("refuses the id of another account's event with UnknownEvent", async () => {
      const { core, accountId, timeline } = await aTravellerWithAnItem();
      const theirs = theEvent(core, accountId, timeline.id, 'arrival');
      const stranger = await anAccount(core);

      await expect(
        core.checkParadox.execute({ accountId: stranger, timelineId: 'primary', significantEvent: theirs.id }),
      ).rejects.toBeInstanceOf(UnknownEvent);
    });
  });
});
