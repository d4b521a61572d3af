import { STARTING_LOCATION } from '../../../../src/core/domain/traveller';
import { anAccount } from '../../../support/builders/account-mother';
import { aJourneyUnderWay } from '../../../support/builders/journey-mother';
import { createTestCore } from '../../../support/builders/test-core';

describe('RegisterItem', () => {
  it("registers an item on the traveller's timeline, where it was found, not yet carried home", async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    const { timeline } = await aJourneyUnderWay(core, accountId);
    core.clock.advanceMinutes(3);

    const item = await core.registerItem.execute({ accountId, description: 'A moon rock', location: 'Sea of Tranquility' });

    expect(item).toEqual({
      accountId,
      id: 'itm_1',
      description: 'A moon rock',
      location: 'Sea of Tranquility',
      timelineId: timeline.id,
      registeredAt: new Date('2030-01-01T12:03:00Z'),
      carriedHomeBy: null,
    });
    expect(core.database.item(accountId, item.id)).toEqual(item);
  });

  it("defaults the location to the traveller's location", async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);

    const item = await core.registerItem.execute({ accountId, description: 'A pocket watch' });

    expect(item.location).toBe(core.database.traveller(accountId)?.location);
    expect(item.location).toBe(STARTING_LOCATION);
    expect(item.timelineId).toBe('primary');
  });

  it("keeps each account's items apart", async () => {
    const core = createTestCore();
    const first = await anAccount(core);
    const second = await anAccount(core);

    const item = await core.registerItem.execute({ accountId: first, description: 'A pocket watch' });

    expect(core.database.item(first, item.id)).toEqual(item);
    expect(core.database.item(second, item.id)).toBeUndefined();
  });
});
