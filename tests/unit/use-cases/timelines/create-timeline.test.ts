import { anAccount } from '../../../support/builders/account-mother';
import { createTestCore } from '../../../support/builders/test-core';

describe('CreateTimeline', () => {
  it('stores an open timeline with the default 12-minute window, created now', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    core.clock.advanceMinutes(2);

    const timeline = await core.createTimeline.execute({
      accountId,
      name: 'Moon landing',
      destinationTime: new Date('1969-07-20T20:17:40Z'),
    });

    expect(timeline).toMatchObject({
      accountId,
      id: 'tml_1',
      name: 'Moon landing',
      destinationTime: new Date('1969-07-20T20:17:40Z'),
      createdAt: new Date('2030-01-01T12:02:00Z'),
      status: 'open',
      windowMinutes: 12,
    });
    expect(timeline.deadline).toEqual(new Date('2030-01-01T12:14:00Z'));
    expect(core.database.timeline(accountId, 'tml_1')).toEqual(timeline);
  });

  it('keeps a window given explicitly', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);

    const timeline = await core.createTimeline.execute({
      accountId,
      name: 'Long stay',
      destinationTime: new Date('1900-01-01T00:00:00Z'),
      windowMinutes: 90,
    });

    expect(core.database.timeline(accountId, timeline.id)?.windowMinutes).toBe(90);
  });

  it('does not touch the traveller: creating a timeline is not travelling', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    const traveller = core.database.traveller(accountId);

    await core.createTimeline.execute({
      accountId,
      name: 'Moon landing',
      destinationTime: new Date('1969-07-20T20:17:40Z'),
    });

    expect(core.database.traveller(accountId)).toBe(traveller);
  });
});
