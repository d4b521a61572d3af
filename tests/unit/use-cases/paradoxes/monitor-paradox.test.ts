import { TimelineNotFound } from '../../../../src/core/domain/errors';
import { TimeRange } from '../../../../src/core/domain/time-range';
import type { EventCursor } from '../../../../src/core/ports/repositories';
import { anAccount } from '../../../support/builders/account-mother';
import { aJourneyUnderWay } from '../../../support/builders/journey-mother';
import { createTestCore } from '../../../support/builders/test-core';

/** The journey's day on the Moon: the arrival at 20:17:40 is in it. */
const THE_DAY = TimeRange.parse('1969-07-20T00:00:00Z/1969-07-20T23:59:59Z');

/** A journey on which three events happen that day at three places, none of them manipulated. */
async function aDayOfEvents() {
  const core = createTestCore();
  const accountId = await anAccount(core);
  const { timeline } = await aJourneyUnderWay(core, accountId);
  await core.registerItem.execute({
    accountId,
    description: 'A moon rock',
    location: 'Sea of Tranquility',
    foundAt: new Date('1969-07-20T21:00:00Z'),
  });
  await core.travelToMoment.execute({
    accountId,
    destinationTime: new Date('1969-07-20T22:00:00Z'),
    location: 'Eagle',
  });
  const ofTheDay = core.database.eventsOf(accountId).filter((event) => event.timelineId === timeline.id);
  const [arrival, retrieval, move] = [...ofTheDay].sort((a, b) => a.time.getTime() - b.time.getTime());
  if (!arrival || !retrieval || !move) throw new Error('expected three events that day');
  return { core, accountId, timeline, arrival, retrieval, move };
}

describe('MonitorParadox', () => {
  it('monitors every event of the range, at every place, with none manipulated: stable', async () => {
    const { core, accountId, timeline, arrival, retrieval, move } = await aDayOfEvents();

    const monitoring = await core.monitorParadox.execute({ accountId, timelineId: timeline.id, range: THE_DAY });

    expect(monitoring).toEqual({
      stable: true,
      reasons: [],
      reasonCount: 0,
      reasonCountCapped: false,
      manipulated: { first: [], count: 0, capped: false },
      events: [arrival, retrieval, move],
      next: null,
    });
    expect(new Set(monitoring.events.map((event) => event.location)).size).toBe(3);
  });

  it("weighs the range's manipulated events, also one moved out of it, listed among them by its new time", async () => {
    const { core, accountId, timeline, arrival, retrieval, move } = await aDayOfEvents();
    await core.manipulateEvent.execute({
      accountId,
      eventId: retrieval.id,
      action: 'Find it the next day',
      time: new Date('1969-07-21T09:00:00Z'),
    });
    const moved = core.database.event(accountId, retrieval.id);

    const monitoring = await core.monitorParadox.execute({ accountId, timelineId: timeline.id, range: THE_DAY });

    expect(monitoring.stable).toBe(false);
    expect(monitoring.reasons.map((reason) => reason.code)).toEqual(['event_displaced']);
    expect(monitoring.manipulated).toEqual({ first: [retrieval.id], count: 1, capped: false });
    // The manipulation's own record happens the next day too, outside the range: it is not monitored.
    expect(monitoring.events).toEqual([arrival, move, moved]);
  });

  it('answers a page at a time, with the cursor of the next, the verdict on the whole range each time', async () => {
    const { core, accountId, timeline, arrival, retrieval, move } = await aDayOfEvents();
    const page = (after: EventCursor | null) =>
      core.monitorParadox.execute({ accountId, timelineId: timeline.id, range: THE_DAY, limit: 2, after });

    const first = await page(null);
    expect(first).toMatchObject({
      stable: true,
      events: [arrival, retrieval],
      next: { time: retrieval.time, id: retrieval.id },
    });
    expect(await page(first.next)).toMatchObject({ stable: true, events: [move], next: null });
  });

  it("refuses a timeline the account does not have, its own or another account's", async () => {
    const { core, accountId, timeline } = await aDayOfEvents();
    const stranger = await anAccount(core);

    await expect(core.monitorParadox.execute({ accountId, timelineId: 'tml_404', range: THE_DAY })).rejects.toEqual(
      new TimelineNotFound('tml_404'),
    );
    await expect(
      core.monitorParadox.execute({ accountId: stranger, timelineId: timeline.id, range: THE_DAY }),
    ).rejects.toEqual(new TimelineNotFound(timeline.id));
  });
});
