import { Duration } from '../../../../src/core/domain/duration';
import { TimeOutOfRange } from '../../../../src/core/domain/errors';
import { anAccount } from '../../../support/builders/account-mother';
import { createTestCore } from '../../../support/builders/test-core';

describe('ShiftTime', () => {
  it('fast-forwards the account clock by the duration, and stores it', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);

    const { newTime } = await core.shiftTime.execute({
      accountId,
      duration: Duration.parse('90m'),
      direction: 'forward',
    });

    expect(newTime).toEqual(new Date('2030-01-01T13:30:00Z'));
    expect(core.database.traveller(accountId)?.currentTime(core.clock.now())).toEqual(newTime);
  });

  it('rewinds by the duration, and the clock keeps running from there', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);

    const { newTime } = await core.shiftTime.execute({
      accountId,
      duration: Duration.parse('2d'),
      direction: 'backward',
    });

    expect(newTime).toEqual(new Date('2029-12-30T12:00:00Z'));
    core.clock.advanceMinutes(1);
    expect(core.database.traveller(accountId)?.currentTime(core.clock.now())).toEqual(new Date('2029-12-30T12:01:00Z'));
  });

  it('keeps a paused clock paused, at the shifted time', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    await core.pauseTime.execute({ accountId });
    core.clock.advanceMinutes(30);

    const { newTime } = await core.shiftTime.execute({
      accountId,
      duration: Duration.parse('1h'),
      direction: 'forward',
    });

    expect(newTime).toEqual(new Date('2030-01-01T13:00:00Z'));
    core.clock.advanceMinutes(30);
    const stored = core.database.traveller(accountId);
    expect(stored?.clock.paused).toBe(true);
    expect(stored?.currentTime(core.clock.now())).toEqual(newTime);
  });

  it('refuses a result outside years 0001-9999 with TimeOutOfRange and changes nothing', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    const before = core.database.contents();

    await expect(
      core.shiftTime.execute({ accountId, duration: Duration.parse('9999999d'), direction: 'forward' }),
    ).rejects.toBeInstanceOf(TimeOutOfRange);
    await expect(
      core.shiftTime.execute({ accountId, duration: Duration.parse('9999999d'), direction: 'backward' }),
    ).rejects.toBeInstanceOf(TimeOutOfRange);

    expect(core.database.contents()).toEqual(before);
  });

  it('applies 100 concurrent shifts of one account one after another: they add up exactly', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    const oneMinute = Duration.parse('1m');

    const results = await Promise.all(
      Array.from({ length: 100 }, () =>
        core.shiftTime.execute({ accountId, duration: oneMinute, direction: 'forward' }),
      ),
    );

    expect(core.database.traveller(accountId)?.currentTime(core.clock.now())).toEqual(new Date('2030-01-01T13:40:00Z'));
    // Each shift saw the one before it: the answers are the 100 distinct steps, in order.
    expect(results.map(({ newTime }) => newTime.getTime())).toEqual(
      Array.from({ length: 100 }, (_, n) => new Date('2030-01-01T12:00:00Z').getTime() + (n + 1) * 60_000),
    );
  });

  it('applies concurrent forward and backward shifts without losing any', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);

    await Promise.all(
      Array.from({ length: 100 }, (_, n) =>
        core.shiftTime.execute({
          accountId,
          duration: Duration.parse(n % 4 === 0 ? '1h' : '1m'),
          direction: n % 4 === 0 ? 'backward' : 'forward',
        }),
      ),
    );

    // 25 rewinds of an hour, 75 fast-forwards of a minute.
    expect(core.database.traveller(accountId)?.currentTime(core.clock.now())).toEqual(new Date('2029-12-31T12:15:00Z'));
  });

  it('records no event', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);

    await core.shiftTime.execute({ accountId, duration: Duration.parse('1d'), direction: 'forward' });

    expect(core.database.eventsOf(accountId)).toEqual([]);
  });
});
