import { TimelineNotFound, UnknownItems } from '../../../../src/core/domain/errors';
import { anAccount } from '../../../support/builders/account-mother';
import { aJourneyUnderWay, DESTINATION_TIME } from '../../../support/builders/journey-mother';
import { createTestCore } from '../../../support/builders/test-core';

const oneHourLater = new Date(DESTINATION_TIME.getTime() + 3_600_000);

async function aTravellerWithAnItem() {
  const core = createTestCore();
  const accountId = await anAccount(core);
  const { timeline } = await aJourneyUnderWay(core, accountId);
  const item = await core.registerItem.execute({ accountId, description: 'A moon rock' });
  return { core, accountId, timeline, item };
}

describe('CheckParadox', () => {
  it('finds a timeline with no proposed changes stable', async () => {
    const { core, accountId, timeline } = await aTravellerWithAnItem();
    expect(await core.checkParadox.execute({ accountId, timelineId: timeline.id, proposedChanges: [] })).toEqual({
      stable: true,
      reasons: [],
    });
  });

  it('finds a known item and a single event time stable', async () => {
    const { core, accountId, timeline, item } = await aTravellerWithAnItem();
    const verdict = await core.checkParadox.execute({
      accountId,
      timelineId: timeline.id,
      proposedChanges: [
        { kind: 'event', event: 'Eagle lands', time: DESTINATION_TIME },
        { kind: 'item', itemId: item.id },
      ],
    });
    expect(verdict).toEqual({ stable: true, reasons: [] });
  });

  it('finds one event at two times unstable, with the reason', async () => {
    const { core, accountId, timeline } = await aTravellerWithAnItem();
    const verdict = await core.checkParadox.execute({
      accountId,
      timelineId: timeline.id,
      proposedChanges: [
        { kind: 'event', event: 'Eagle lands', time: oneHourLater },
        { kind: 'event', event: 'eagle LANDS', time: DESTINATION_TIME },
      ],
    });
    expect(verdict.stable).toBe(false);
    expect(verdict.reasons).toMatchObject([{ code: 'event_at_two_times', event: 'Eagle lands', times: [DESTINATION_TIME, oneHourLater] }]);
  });

  it('checks the primary timeline too', async () => {
    const { core, accountId } = await aTravellerWithAnItem();
    const verdict = await core.checkParadox.execute({ accountId, timelineId: 'primary', proposedChanges: [] });
    expect(verdict.stable).toBe(true);
  });

  it('refuses an unknown timeline with TimelineNotFound', async () => {
    const { core, accountId } = await aTravellerWithAnItem();
    await expect(
      core.checkParadox.execute({ accountId, timelineId: 'tml_404', proposedChanges: [] }),
    ).rejects.toEqual(new TimelineNotFound('tml_404'));
  });

  it("refuses another account's timeline with TimelineNotFound", async () => {
    const { core, timeline } = await aTravellerWithAnItem();
    const stranger = await anAccount(core);
    await expect(
      core.checkParadox.execute({ accountId: stranger, timelineId: timeline.id, proposedChanges: [] }),
    ).rejects.toBeInstanceOf(TimelineNotFound);
  });

  it('refuses unknown items with UnknownItems naming each offending id once, whatever the events', async () => {
    const { core, accountId, timeline, item } = await aTravellerWithAnItem();
    let refusal: unknown;
    try {
      await core.checkParadox.execute({
        accountId,
        timelineId: timeline.id,
        proposedChanges: [
          { kind: 'item', itemId: 'itm_404' },
          { kind: 'item', itemId: item.id },
          { kind: 'event', event: 'Eagle lands', time: DESTINATION_TIME },
          { kind: 'item', itemId: 'itm_404' },
        ],
      });
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(UnknownItems);
    expect(refusal).toMatchObject({ itemIds: ['itm_404'], details: { item_ids: ['itm_404'] } });
  });

  it("refuses another account's item as unknown", async () => {
    const { core, item } = await aTravellerWithAnItem();
    const stranger = await anAccount(core);
    await expect(
      core.checkParadox.execute({ accountId: stranger, timelineId: 'primary', proposedChanges: [{ kind: 'item', itemId: item.id }] }),
    ).rejects.toEqual(new UnknownItems([item.id]));
  });

  it('stores nothing', async () => {
    const { core, accountId, timeline, item } = await aTravellerWithAnItem();
    const before = core.database.contents();
    await core.checkParadox.execute({
      accountId,
      timelineId: timeline.id,
      proposedChanges: [
        { kind: 'event', event: 'Eagle lands', time: DESTINATION_TIME },
        { kind: 'event', event: 'Eagle lands', time: oneHourLater },
        { kind: 'item', itemId: item.id },
      ],
    });
    expect(core.database.contents()).toEqual(before);
  });
});
