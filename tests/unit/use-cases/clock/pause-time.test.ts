import { ClockAlreadyPaused } from '../../../../src/core/domain/errors';
import { anAccount } from '../../../support/builders/account-mother';
import { createTestCore, PRESENT } from '../../../support/builders/test-core';

describe('PauseTime', () => {
  it('holds the account clock still at the moment of pausing, and stores it paused', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    core.clock.advanceMinutes(5);

    const { pausedAt } = await core.pauseTime.execute({ accountId });

    expect(pausedAt).toEqual(new Date('2030-01-01T12:05:00Z'));
    core.clock.advanceMinutes(60);
    const stored = core.database.traveller(accountId);
    expect(stored?.clock.paused).toBe(true);
    expect(stored?.currentTime(core.clock.now())).toEqual(pausedAt);
  });

  it('changes neither the place nor the timeline', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    const before = core.database.traveller(accountId);

    await core.pauseTime.execute({ accountId });

    expect(core.database.traveller(accountId)).toMatchObject({
      timelineId: before?.timelineId,
      location: before?.location,
      journeyTravelId: before?.journeyTravelId,
    });
  });

  it('refuses a paused clock with ClockAlreadyPaused and changes nothing', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    await core.pauseTime.execute({ accountId });
    core.clock.advanceMinutes(10);
    const before = core.database.contents();

    await expect(core.pauseTime.execute({ accountId })).rejects.toBeInstanceOf(ClockAlreadyPaused);

    expect(core.database.contents()).toEqual(before);
    expect(core.database.traveller(accountId)?.currentTime(core.clock.now())).toEqual(new Date(PRESENT));
  });

  it("leaves another account's clock running", async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    const other = await anAccount(core);

    await core.pauseTime.execute({ accountId });
    core.clock.advanceMinutes(3);

    expect(core.database.traveller(other)?.clock.paused).toBe(false);
    expect(core.database.traveller(other)?.currentTime(core.clock.now())).toEqual(core.clock.now());
  });

  it('records no event', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);

    await core.pauseTime.execute({ accountId });

    expect(core.database.eventsOf(accountId)).toEqual([]);
  });
});
