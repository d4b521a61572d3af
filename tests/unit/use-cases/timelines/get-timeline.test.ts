import { TimelineNotFound } from '../../../../src/core/domain/errors';
import { anAccount } from '../../../support/builders/account-mother';
import { createTestCore } from '../../../support/builders/test-core';

describe('GetTimeline', () => {
  it('returns a timeline of the account', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    const created = await core.createTimeline.execute({
      accountId,
      name: 'Moon landing',
      destinationTime: new Date('1969-07-20T20:17:40Z'),
    });

    expect(await core.getTimeline.execute({ accountId, timelineId: created.id })).toEqual(created);
  });

  it("returns the account's primary timeline", async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);

    const primary = await core.getTimeline.execute({ accountId, timelineId: 'primary' });
    expect(primary).toMatchObject({ accountId, id: 'primary', status: 'open', windowMinutes: null });
  });

  it('refuses an unknown id with TimelineNotFound', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);

    await expect(core.getTimeline.execute({ accountId, timelineId: 'tml_404' })).rejects.toMatchObject({
      code: 'timeline_not_found',
      details: { timeline_id: 'tml_404' },
    });
  });

  it("refuses another account's timeline with TimelineNotFound", async () => {
    const core = createTestCore();
    const owner = await anAccount(core);
    const stranger = await anAccount(core);
    const created = await core.createTimeline.execute({
      accountId: owner,
      name: 'Moon landing',
      destinationTime: new Date('1969-07-20T20:17:40Z'),
    });

    await expect(core.getTimeline.execute({ accountId: stranger, timelineId: created.id })).rejects.toBeInstanceOf(
      TimelineNotFound,
    );
  });

  it('reads an untravelled timeline as expired once its window has passed, without storing that', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    const created = await core.createTimeline.execute({
      accountId,
      name: 'Moon landing',
      destinationTime: new Date('1969-07-20T20:17:40Z'),
    });

    core.clock.advanceMinutes(12);
    expect((await core.getTimeline.execute({ accountId, timelineId: created.id })).status).toBe('open');
    core.clock.advanceMinutes(1);
    expect((await core.getTimeline.execute({ accountId, timelineId: created.id })).status).toBe('expired');
    expect(core.database.timeline(accountId, created.id)?.status).toBe('open');
  });
});
