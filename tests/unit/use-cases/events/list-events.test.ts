import { TimelineNotFound } from '../../../../src/core/domain/errors';
import { TimeRange } from '../../../../src/core/domain/time-range';
import { DEFAULT_EVENT_PAGE_SIZE, MAX_EVENT_PAGE_SIZE } from '../../../../src/core/use-cases/events/list-events';
import { anAccount } from '../../../support/builders/account-mother';
import { anEvent } from '../../../support/builders/event-builder';
import { aJourneyUnderWay } from '../../../support/builders/journey-mother';
import { createTestCore, type TestCore } from '../../../support/builders/test-core';

const WHOLE_DAY = TimeRange.parse('1815-06-18T00:00:00Z/1815-06-18T23:59:59Z');

/** Registers an item found at `location` at `time` (HH:MM:SS on 1815-06-18): one `item_retrieved` event. */
async function aFind(core: TestCore, accountId: string, description: string, location: string, time: string) {
  const { item } = await core.registerItem.execute({
    accountId,
    description,
    location,
    foundAt: new Date(`1815-06-18T${time}Z`),
  });
  const event = core.database.eventsOf(accountId).find((recorded) => recorded.subjectId === item.id);
  if (!event) throw new Error(`no event recorded for ${item.id}`);
  return event;
}

/** Stores `count` events at Waterloo on the account's primary timeline, one second apart, bypassing the use cases. */
async function manyEventsAtWaterloo(core: TestCore, accountId: string, count: number): Promise<void> {
  const events = core.database.repositories().events;
  for (let n = 0; n < count; n += 1) {
    const time = new Date(Date.UTC(1815, 5, 18, 10, 0, n));
    await events.add(
      anEvent({
        accountId,
        id: `evt_seed_${n}`,
        timelineId: 'primary',
        location: 'Waterloo',
        time,
        originalTime: time,
      }),
    );
  }
}

describe('ListEvents', () => {
  it('lists the events at a location within the range, oldest first', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    const late = await aFind(core, accountId, 'A musket ball', 'Waterloo', '18:00:00');
    const early = await aFind(core, accountId, 'A shako', 'Waterloo', '11:00:00');
    await aFind(core, accountId, 'A letter', 'Brussels', '12:00:00');

    const page = await core.listEvents.execute({ accountId, place: 'Waterloo', range: WHOLE_DAY });

    expect(page).toEqual({ timelineId: 'primary', events: [early, late], next: null });
  });

  it('compares the place with the location ignoring case and extra white space', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    const find = await aFind(core, accountId, 'A shako', 'Mont-Saint-Jean  farm', '11:00:00');

    const page = await core.listEvents.execute({ accountId, place: '  mont-saint-jean FARM ', range: WHOLE_DAY });

    expect(page.events).toEqual([find]);
  });

  it('finds events by their name as well as by their location', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    const shako = await aFind(core, accountId, 'A shako', 'Waterloo', '11:00:00');
    await aFind(core, accountId, 'A letter', 'Brussels', '12:00:00');

    const page = await core.listEvents.execute({ accountId, place: 'item retrieved:  a SHAKO', range: WHOLE_DAY });

    expect(page.events).toEqual([shako]);
  });

  it('includes events exactly at both ends of the range and nothing beyond', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    await aFind(core, accountId, 'Too early', 'Waterloo', '10:59:59');
    const atStart = await aFind(core, accountId, 'At the start', 'Waterloo', '11:00:00');
    const atEnd = await aFind(core, accountId, 'At the end', 'Waterloo', '12:00:00');
    await aFind(core, accountId, 'Too late', 'Waterloo', '12:00:01');

    const page = await core.listEvents.execute({
      accountId,
      place: 'Waterloo',
      range: TimeRange.parse('1815-06-18T11:00:00Z/1815-06-18T12:00:00Z'),
    });

    expect(page.events).toEqual([atStart, atEnd]);
  });

  it('lists an event of a one-instant range', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    const find = await aFind(core, accountId, 'A shako', 'Waterloo', '11:00:00');

    const page = await core.listEvents.execute({
      accountId,
      place: 'Waterloo',
      range: TimeRange.parse('1815-06-18T11:00:00Z/1815-06-18T11:00:00Z'),
    });

    expect(page.events).toEqual([find]);
  });

  it('pages with a cursor: following next covers every event exactly once, in order', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    // Some share a time, so the order and the cursor must fall back on the id.
    for (const [n, time] of [
      '11:00:00',
      '11:00:00',
      '11:00:00',
      '12:00:00',
      '12:00:00',
      '13:00:00',
      '14:00:00',
    ].entries()) {
      await aFind(core, accountId, `Find ${n}`, 'Waterloo', time);
    }
    const all = (await core.listEvents.execute({ accountId, place: 'Waterloo', range: WHOLE_DAY })).events;

    const seen: string[] = [];
    let page = await core.listEvents.execute({ accountId, place: 'Waterloo', range: WHOLE_DAY, limit: 2 });
    const pageSizes = [page.events.length];
    seen.push(...page.events.map((event) => event.id));
    while (page.next) {
      const last = page.events[page.events.length - 1];
      expect(page.next).toEqual({ time: last?.time, id: last?.id });
      page = await core.listEvents.execute({
        accountId,
        place: 'Waterloo',
        range: WHOLE_DAY,
        limit: 2,
        after: page.next,
      });
      pageSizes.push(page.events.length);
      seen.push(...page.events.map((event) => event.id));
    }

    expect(all).toHaveLength(7);
    expect(seen).toEqual(all.map((event) => event.id));
    expect(pageSizes).toEqual([2, 2, 2, 1]);
  });

  it('gives no next cursor when the last page is exactly full', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    await aFind(core, accountId, 'A shako', 'Waterloo', '11:00:00');
    await aFind(core, accountId, 'A letter', 'Waterloo', '12:00:00');

    const page = await core.listEvents.execute({ accountId, place: 'Waterloo', range: WHOLE_DAY, limit: 2 });

    expect(page.events).toHaveLength(2);
    expect(page.next).toBeNull();
  });

  it(`shows ${DEFAULT_EVENT_PAGE_SIZE} events by default and caps the page at ${MAX_EVENT_PAGE_SIZE}`, async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    await manyEventsAtWaterloo(core, accountId, MAX_EVENT_PAGE_SIZE + 2);

    const byDefault = await core.listEvents.execute({ accountId, place: 'Waterloo', range: WHOLE_DAY });
    const capped = await core.listEvents.execute({ accountId, place: 'Waterloo', range: WHOLE_DAY, limit: 10_000 });

    expect([DEFAULT_EVENT_PAGE_SIZE, MAX_EVENT_PAGE_SIZE]).toEqual([100, 500]);
    expect(byDefault.events).toHaveLength(100);
    expect(byDefault.next).not.toBeNull();
    expect(capped.events).toHaveLength(500);
    expect(capped.next).toEqual({ time: capped.events[499]?.time, id: capped.events[499]?.id });
  });

  it.each([0, -5])('shows at least one event per page, even for a limit of %d', async (limit) => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    await manyEventsAtWaterloo(core, accountId, 2);

    const page = await core.listEvents.execute({ accountId, place: 'Waterloo', range: WHOLE_DAY, limit });

    expect(page.events.map((event) => event.id)).toEqual(['evt_seed_0']);
    expect(page.next).not.toBeNull();
  });

  it('defaults to the timeline the traveller is on', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    await aFind(core, accountId, 'Left at home', 'Waterloo', '11:00:00');
    const { timeline } = await aJourneyUnderWay(core, accountId);
    const there = await aFind(core, accountId, 'Found away', 'Waterloo', '11:00:00');

    const away = await core.listEvents.execute({ accountId, place: 'Waterloo', range: WHOLE_DAY });
    const home = await core.listEvents.execute({
      accountId,
      place: 'Waterloo',
      range: WHOLE_DAY,
      timelineId: 'primary',
    });

    expect(away).toEqual({ timelineId: timeline.id, events: [there], next: null });
    expect(home.events.map((event) => event.description)).toEqual(['Item retrieved: Left at home']);
  });

  it('refuses an unknown timeline given explicitly with TimelineNotFound', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);

    await expect(
      core.listEvents.execute({ accountId, place: 'Waterloo', range: WHOLE_DAY, timelineId: 'tml_404' }),
    ).rejects.toEqual(new TimelineNotFound('tml_404'));
  });

  it("never shows another account's events, nor its timelines", async () => {
    const core = createTestCore();
    const owner = await anAccount(core);
    await aFind(core, owner, 'Theirs', 'Waterloo', '11:00:00');
    const { timeline } = await aJourneyUnderWay(core, owner);
    await aFind(core, owner, 'Theirs too', 'Waterloo', '11:00:00');
    const accountId = await anAccount(core);
    const mine = await aFind(core, accountId, 'Mine', 'Waterloo', '11:00:00');

    const page = await core.listEvents.execute({ accountId, place: 'Waterloo', range: WHOLE_DAY });

    expect(page.events).toEqual([mine]);
    await expect(
      core.listEvents.execute({ accountId, place: 'Waterloo', range: WHOLE_DAY, timelineId: timeline.id }),
    ).rejects.toBeInstanceOf(TimelineNotFound);
  });

  it('finds a manipulated event where it happens now, not where it first happened', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    const find = await aFind(core, accountId, 'A shako', 'Waterloo', '11:00:00');
    await core.manipulateEvent.execute({
      accountId,
      eventId: find.id,
      action: 'Drop it later',
      time: new Date('1815-06-18T20:00:00Z'),
    });

    const morning = await core.listEvents.execute({
      accountId,
      place: 'Waterloo',
      range: TimeRange.parse('1815-06-18T10:00:00Z/1815-06-18T12:00:00Z'),
    });
    const evening = await core.listEvents.execute({
      accountId,
      place: 'Item retrieved: A shako',
      range: TimeRange.parse('1815-06-18T19:00:00Z/1815-06-18T21:00:00Z'),
    });

    expect(morning.events).toEqual([]);
    expect(evening.events).toMatchObject([
      { id: find.id, time: new Date('1815-06-18T20:00:00Z'), originalTime: find.time, revision: 1 },
    ]);
  });

  it('stores nothing', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    await aFind(core, accountId, 'A shako', 'Waterloo', '11:00:00');
    const before = core.database.contents();

    await core.listEvents.execute({ accountId, place: 'Waterloo', range: WHOLE_DAY });

    expect(core.database.contents()).toEqual(before);
  });
});
