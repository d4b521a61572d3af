import { STARTING_LOCATION } from '../../../../src/core/domain/traveller';
import { anAccount } from '../../../support/builders/account-mother';
import { aJourneyUnderWay, DESTINATION_TIME } from '../../../support/builders/journey-mother';
import { createTestCore } from '../../../support/builders/test-core';

describe('RegisterItem', () => {
  it("registers an item on the traveller's timeline, where and when it was found, not yet carried home", async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    const { timeline } = await aJourneyUnderWay(core, accountId);
    core.clock.advanceMinutes(3);

    const { item, registered } = await core.registerItem.execute({
      accountId,
      description: 'A moon rock',
      location: 'Sea of Tranquility',
    });

    expect(registered).toBe(true);
    expect(item).toEqual({
      accountId,
      id: 'itm_1',
      description: 'A moon rock',
      location: 'Sea of Tranquility',
      timelineId: timeline.id,
      registeredAt: new Date('2030-01-01T12:03:00Z'),
      foundAt: new Date(DESTINATION_TIME.getTime() + 3 * 60_000),
      carriedHomeBy: null,
    });
    expect(core.database.item(accountId, item.id)).toEqual(item);
  });

  it("defaults the location to the traveller's location", async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);

    const { item } = await core.registerItem.execute({ accountId, description: 'A pocket watch' });

    expect(item.location).toBe(core.database.traveller(accountId)?.location);
    expect(item.location).toBe(STARTING_LOCATION);
    expect(item.timelineId).toBe('primary');
  });

  it('keeps a foundAt given explicitly', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    const foundAt = new Date('1900-01-01T00:00:00Z');

    const { item } = await core.registerItem.execute({ accountId, description: 'A pocket watch', foundAt });

    expect(core.database.item(accountId, item.id)?.foundAt).toEqual(foundAt);
  });

  it("keeps each account's items apart", async () => {
    const core = createTestCore();
    const first = await anAccount(core);
    const second = await anAccount(core);

    const { item } = await core.registerItem.execute({ accountId: first, description: 'A pocket watch' });

    expect(core.database.item(first, item.id)).toEqual(item);
    expect(core.database.item(second, item.id)).toBeUndefined();
  });

  it('records the retrieval as an event at the moment and place of the find, which the item depends on', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    const { timeline } = await aJourneyUnderWay(core, accountId);
    const eventsBefore = core.database.eventsOf(accountId).length;
    const foundAt = new Date('1969-07-20T21:00:00Z');

    const { item } = await core.registerItem.execute({
      accountId,
      description: 'A moon rock',
      location: 'Sea of Tranquility',
      foundAt,
    });

    const recorded = core.database.eventsOf(accountId).slice(eventsBefore);
    expect(recorded).toEqual([
      {
        accountId,
        id: expect.stringMatching(/^evt_/),
        timelineId: timeline.id,
        kind: 'item_retrieved',
        time: foundAt,
        originalTime: foundAt,
        description: 'Item retrieved: A moon rock',
        location: 'Sea of Tranquility',
        subjectId: item.id,
        recordedAt: core.clock.now(),
        revision: 0,
      },
    ]);
  });

  describe('with reuseSame (Family A asks again with a GET)', () => {
    const found = {
      description: 'A moon rock',
      location: 'Sea of Tranquility',
      foundAt: new Date('1969-07-20T21:00:00Z'),
    };

    it('answers the item already found, registering no copy and recording no second event', async () => {
      const core = createTestCore();
      const accountId = await anAccount(core);
      await aJourneyUnderWay(core, accountId);
      const first = await core.registerItem.execute({ accountId, ...found, reuseSame: true });
      const before = core.database.contents();
      core.clock.advanceMinutes(1);

      const again = await core.registerItem.execute({ accountId, ...found, reuseSame: true });

      expect(first.registered).toBe(true);
      expect(again).toEqual({ item: first.item, registered: false });
      expect(core.database.contents()).toEqual(before);
    });

    it.each([
      ['another description', { description: 'A flag' }],
      ['another place', { location: 'Tranquility Base' }],
      ['another time', { foundAt: new Date('1969-07-20T21:00:01Z') }],
    ])('registers a new item for %s', async (_label, difference) => {
      const core = createTestCore();
      const accountId = await anAccount(core);
      await aJourneyUnderWay(core, accountId);
      const first = await core.registerItem.execute({ accountId, ...found, reuseSame: true });

      const other = await core.registerItem.execute({ accountId, ...found, ...difference, reuseSame: true });

      expect(other.registered).toBe(true);
      expect(other.item.id).not.toBe(first.item.id);
      expect(core.database.eventsOf(accountId).filter((event) => event.kind === 'item_retrieved')).toHaveLength(2);
    });

    it('registers a new item for the same find on another timeline', async () => {
      const core = createTestCore();
      const accountId = await anAccount(core);
      const first = await core.registerItem.execute({ accountId, ...found, reuseSame: true });
      await aJourneyUnderWay(core, accountId);

      const other = await core.registerItem.execute({ accountId, ...found, reuseSame: true });

      expect(other.registered).toBe(true);
      expect(other.item.timelineId).not.toBe(first.item.timelineId);
    });

    it("does not answer another account's item", async () => {
      const core = createTestCore();
      const owner = await anAccount(core);
      const theirs = await core.registerItem.execute({ accountId: owner, ...found, reuseSame: true });
      const accountId = await anAccount(core);

      const mine = await core.registerItem.execute({ accountId, ...found, reuseSame: true });

      expect(mine.registered).toBe(true);
      expect(mine.item.accountId).toBe(accountId);
      expect(core.database.item(owner, theirs.item.id)).toEqual(theirs.item);
    });

    it('is needed to reuse: without it the same find is registered again', async () => {
      const core = createTestCore();
      const accountId = await anAccount(core);
      const first = await core.registerItem.execute({ accountId, ...found });

      const second = await core.registerItem.execute({ accountId, ...found });

      expect(second.registered).toBe(true);
      expect(second.item.id).not.toBe(first.item.id);
    });
  });
});
