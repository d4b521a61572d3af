import { EventNotFound, TimeOutOfRange } from '../../../../src/core/domain/errors';
import { anAccount } from '../../../support/builders/account-mother';
import { aJourneyUnderWay } from '../../../support/builders/journey-mother';
import { HISTORY_LISTED } from '../../../../src/core/use-cases/events/manipulate-event';
import { createTestCore, type TestCore } from '../../../support/builders/test-core';

const FOUND_AT = new Date('1969-07-20T21:00:00Z');
const AN_HOUR_LATER = new Date('1969-07-20T22:00:00Z');
const TWO_HOURS_LATER = new Date('1969-07-20T23:00:00Z');

/** A journey with a moon rock found at FOUND_AT; returns its `item_retrieved` event. */
async function aRecordedFind(core: TestCore, accountId: string) {
  const { timeline } = await aJourneyUnderWay(core, accountId);
  const { item } = await core.registerItem.execute({
    accountId,
    description: 'A moon rock',
    location: 'Sea of Tranquility',
    foundAt: FOUND_AT,
  });
  const event = core.database.eventsOf(accountId).find((recorded) => recorded.subjectId === item.id);
  if (!event) throw new Error(`no event recorded for ${item.id}`);
  return { timeline, event };
}

describe('ManipulateEvent', () => {
  it('moves the event to the new time, keeping its original time, and stores it', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    const { event } = await aRecordedFind(core, accountId);

    const result = await core.manipulateEvent.execute({
      accountId,
      eventId: event.id,
      action: 'Delay the find',
      time: AN_HOUR_LATER,
    });

    expect(result.event).toEqual({ ...event, time: AN_HOUR_LATER, originalTime: FOUND_AT, revision: 1 });
    expect(core.database.event(accountId, event.id)).toEqual(result.event);
  });

  it('keeps every manipulation as history, numbered by revision', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    const { event } = await aRecordedFind(core, accountId);
    const first = await core.manipulateEvent.execute({
      accountId,
      eventId: event.id,
      action: 'Delay the find',
      time: AN_HOUR_LATER,
    });
    core.clock.advanceMinutes(1);

    const second = await core.manipulateEvent.execute({
      accountId,
      eventId: event.id,
      action: 'Delay it again',
      time: TWO_HOURS_LATER,
    });

    expect(first.history).toEqual([first.manipulation]);
    expect(second.manipulation).toEqual({
      accountId,
      id: expect.stringMatching(/^man_/),
      eventId: event.id,
      action: 'Delay it again',
      fromTime: AN_HOUR_LATER,
      toTime: TWO_HOURS_LATER,
      appliedAt: core.clock.now(),
      revision: 2,
    });
    expect(second.history).toEqual([first.manipulation, second.manipulation]);
    expect(first.manipulation).toMatchObject({ fromTime: FOUND_AT, toTime: AN_HOUR_LATER, revision: 1 });
    expect(second.event).toMatchObject({ time: TWO_HOURS_LATER, originalTime: FOUND_AT, revision: 2 });
    expect(core.database.manipulationsOf(accountId)).toEqual([first.manipulation, second.manipulation]);
  });

  it('lists the latest HISTORY_LISTED manipulations of an event manipulated more, keeping them all', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    const { event } = await aRecordedFind(core, accountId);
    const manipulate = (n: number) =>
      core.manipulateEvent.execute({
        accountId,
        eventId: event.id,
        action: `Move ${n}`,
        time: n % 2 === 0 ? AN_HOUR_LATER : TWO_HOURS_LATER,
      });
    for (let n = 1; n <= HISTORY_LISTED; n++) await manipulate(n);

    const last = await manipulate(HISTORY_LISTED + 1);

    expect(last.event.revision).toBe(HISTORY_LISTED + 1);
    expect(last.history).toHaveLength(HISTORY_LISTED);
    expect(last.history.map((manipulation) => manipulation.revision)).toEqual(
      Array.from({ length: HISTORY_LISTED }, (_, n) => n + 2),
    );
    expect(core.database.manipulationsOf(accountId)).toHaveLength(HISTORY_LISTED + 1);
  });

  it('records the manipulation itself as an event at the new time, on the same timeline and place', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    const { timeline, event } = await aRecordedFind(core, accountId);
    const before = core.database.eventsOf(accountId).length;

    await core.manipulateEvent.execute({ accountId, eventId: event.id, action: 'Delay the find', time: AN_HOUR_LATER });

    expect(core.database.eventsOf(accountId).slice(before)).toEqual([
      {
        accountId,
        id: expect.stringMatching(/^evt_/),
        timelineId: timeline.id,
        kind: 'manipulation',
        time: AN_HOUR_LATER,
        originalTime: AN_HOUR_LATER,
        description: "Manipulation of 'Item retrieved: A moon rock': Delay the find",
        location: 'Sea of Tranquility',
        subjectId: null,
        recordedAt: core.clock.now(),
        revision: 0,
      },
    ]);
  });

  it('manipulates an event of a timeline other than the one the traveller is on', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    const { timeline, event } = await aRecordedFind(core, accountId);
    await core.travel.execute({ accountId, destination: 'primary' });

    const result = await core.manipulateEvent.execute({
      accountId,
      eventId: event.id,
      action: 'Delay the find',
      time: AN_HOUR_LATER,
    });

    expect(core.database.traveller(accountId)?.timelineId).toBe('primary');
    expect(result.event.timelineId).toBe(timeline.id);
    expect(core.database.event(accountId, event.id)?.time).toEqual(AN_HOUR_LATER);
  });

  it('refuses an unknown event with EventNotFound and changes nothing', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    await aRecordedFind(core, accountId);
    const before = core.database.contents();

    await expect(
      core.manipulateEvent.execute({ accountId, eventId: 'evt_404', action: 'Anything', time: AN_HOUR_LATER }),
    ).rejects.toEqual(new EventNotFound('evt_404'));
    expect(core.database.contents()).toEqual(before);
  });

  it("refuses another account's event with EventNotFound and changes nothing", async () => {
    const core = createTestCore();
    const owner = await anAccount(core);
    const { event } = await aRecordedFind(core, owner);
    const accountId = await anAccount(core);
    const before = core.database.contents();

    await expect(
      core.manipulateEvent.execute({ accountId, eventId: event.id, action: 'Sabotage', time: AN_HOUR_LATER }),
    ).rejects.toMatchObject({ code: 'event_not_found', details: { event_id: event.id } });
    expect(core.database.contents()).toEqual(before);
    expect(core.database.event(owner, event.id)).toEqual(event);
  });

  it('refuses a time outside years 0001-9999 with TimeOutOfRange and changes nothing', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    const { event } = await aRecordedFind(core, accountId);
    const before = core.database.contents();

    await expect(
      core.manipulateEvent.execute({
        accountId,
        eventId: event.id,
        action: 'Too far',
        time: new Date(Date.UTC(10000, 0, 1)),
      }),
    ).rejects.toBeInstanceOf(TimeOutOfRange);
    expect(core.database.contents()).toEqual(before);
  });
});
