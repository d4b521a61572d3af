import { TimeOutOfRange } from '../../../../src/core/domain/errors';
import { anAccount } from '../../../support/builders/account-mother';
import { aJourneyUnderWay, DESTINATION_TIME } from '../../../support/builders/journey-mother';
import { createTestCore, PRESENT } from '../../../support/builders/test-core';

describe('CreateAnchor', () => {
  it("defaults the timestamp to the account clock's current time and records the current timeline", async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    core.clock.advanceMinutes(5);

    const anchor = await core.createAnchor.execute({ accountId, description: 'Before leaving' });

    expect(anchor).toEqual({
      accountId,
      id: 'anc_1',
      timestamp: new Date('2030-01-01T12:05:00Z'),
      description: 'Before leaving',
      timelineId: 'primary',
      location: 'home',
      createdAt: new Date('2030-01-01T12:05:00Z'),
    });
    expect(core.database.anchor(accountId, anchor.id)).toEqual(anchor);
  });

  it("takes the account clock's time, not the wall clock's, once the traveller has moved", async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    const { timeline } = await aJourneyUnderWay(core, accountId);
    core.clock.advanceMinutes(3);

    const anchor = await core.createAnchor.execute({ accountId, description: 'Touchdown' });

    expect(anchor.timestamp).toEqual(new Date(DESTINATION_TIME.getTime() + 3 * 60_000));
    expect(anchor.timelineId).toBe(timeline.id);
  });

  it('keeps a timestamp given explicitly', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);

    const anchor = await core.createAnchor.execute({
      accountId,
      description: 'New year',
      timestamp: new Date('2031-01-01T00:00:00Z'),
    });

    expect(anchor.timestamp).toEqual(new Date('2031-01-01T00:00:00Z'));
    expect(anchor.createdAt).toEqual(new Date(PRESENT));
  });

  it('refuses a timestamp outside the supported range and stores nothing', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    const before = core.database.contents();

    await expect(
      core.createAnchor.execute({ accountId, description: 'Too far', timestamp: new Date(Date.UTC(10000, 0, 1)) }),
    ).rejects.toBeInstanceOf(TimeOutOfRange);
    expect(core.database.contents()).toEqual(before);
  });

  it('records setting the anchor as an event at its timestamp and place, which the anchor depends on', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    const { timeline } = await aJourneyUnderWay(core, accountId);
    const before = core.database.eventsOf(accountId).length;
    const timestamp = new Date('1969-07-20T20:30:00Z');

    const anchor = await core.createAnchor.execute({ accountId, description: 'Touchdown', timestamp });

    expect(core.database.eventsOf(accountId).slice(before)).toEqual([
      {
        accountId,
        id: expect.stringMatching(/^evt_/),
        timelineId: timeline.id,
        kind: 'anchor_set',
        time: timestamp,
        originalTime: timestamp,
        description: 'Anchor set: Touchdown',
        location: anchor.location,
        subjectId: anchor.id,
        recordedAt: core.clock.now(),
        revision: 0,
      },
    ]);
  });
});
