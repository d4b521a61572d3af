import { ClockAlreadyRunning } from '../../../../src/core/domain/errors';
import { anAccount } from '../../../support/builders/account-mother';
import { createTestCore } from '../../../support/builders/test-core';

describe('ResumeTime', () => {
  it('lets time run on from the exact moment of pausing, and stores it running', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    core.clock.advanceBy(5 * 60_000 + 250);
    const { pausedAt } = await core.pauseTime.execute({ accountId });
    core.clock.advanceMinutes(45);

    const { currentTime } = await core.resumeTime.execute({ accountId });

    expect(currentTime).toEqual(pausedAt);
    expect(currentTime).toEqual(new Date('2030-01-01T12:05:00Z')); // the API's whole seconds
    core.clock.advanceMinutes(2);
    const stored = core.database.traveller(accountId);
    expect(stored?.clock.paused).toBe(false);
    expect(stored?.currentTime(core.clock.now())).toEqual(new Date('2030-01-01T12:07:00Z'));
  });

  it('refuses a running clock with ClockAlreadyRunning and changes nothing', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    const before = core.database.contents();

    await expect(core.resumeTime.execute({ accountId })).rejects.toBeInstanceOf(ClockAlreadyRunning);

    expect(core.database.contents()).toEqual(before);
  });

  it('refuses a second resume, keeping the first', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    await core.pauseTime.execute({ accountId });
    core.clock.advanceMinutes(10);
    await core.resumeTime.execute({ accountId });
    const before = core.database.contents();
    core.clock.advanceMinutes(10);

    await expect(core.resumeTime.execute({ accountId })).rejects.toMatchObject({ code: 'clock_already_running' });

    expect(core.database.contents()).toEqual(before);
  });
});
