import type { Timeline } from '../../../../src/core/domain/timeline';
import type { DeliveryJob, WebhookJobs, WindowCheck } from '../../../../src/core/ports/webhook-jobs';
import type { WebhookMessages } from '../../../../src/core/ports/webhook-messages';
import { RecordWindowClosed } from '../../../../src/core/use-cases/webhooks/record-window-closed';
import { anAccount } from '../../../support/builders/account-mother';
import { aJourneyUnderWay } from '../../../support/builders/journey-mother';
import { createTestCore, type TestCore } from '../../../support/builders/test-core';

/** What the use case asked of the webhooks' ports (what PostgreSQL makes of it: webhook-recording.test.ts). */
class Recorded implements WebhookMessages, WebhookJobs {
  readonly windowsClosed: Timeline[] = [];
  readonly checks: { check: WindowCheck; at: Date }[] = [];
  readonly deliveries: { job: DeliveryJob; at: Date }[] = [];

  recordWindowClosed(timeline: Timeline): Promise<number> {
    this.windowsClosed.push(timeline);
    return Promise.resolve(1);
  }

  recordTest(): Promise<null> {
    throw new Error('a window check records no test message');
  }

  scheduleWindowCheck(check: WindowCheck, at: Date): Promise<void> {
    this.checks.push({ check, at });
    return Promise.resolve();
  }

  scheduleDelivery(job: DeliveryJob, at: Date): Promise<void> {
    this.deliveries.push({ job, at });
    return Promise.resolve();
  }
}

function checkerOf(core: TestCore): { check: RecordWindowClosed; recorded: Recorded } {
  const recorded = new Recorded();
  return { check: new RecordWindowClosed(core.transactions, core.clock, recorded, recorded), recorded };
}

describe('RecordWindowClosed', () => {
  it('records the message when the window closed on the journey, with the timeline as shown: expired', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    const { timeline } = await aJourneyUnderWay(core, accountId, { windowMinutes: 12 });
    const { check, recorded } = checkerOf(core);
    core.clock.advanceMinutes(13);

    expect(await check.execute({ accountId, timelineId: timeline.id })).toEqual({ outcome: 'recorded', messages: 1 });
    expect(recorded.windowsClosed).toHaveLength(1);
    expect(recorded.windowsClosed[0]).toMatchObject({ id: timeline.id, accountId, status: 'expired' });
    // Stored as it was: the check reads, as GetTimeline does.
    expect(core.database.timeline(accountId, timeline.id)?.status).toBe('active');
  });

  it('records it for a timeline nobody travelled to, whose window closed while open', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    const timeline = await core.createTimeline.execute({
      accountId,
      name: 'Never visited',
      destinationTime: new Date('1969-07-20T20:17:40Z'),
      windowMinutes: 5,
    });
    const { check, recorded } = checkerOf(core);
    core.clock.advanceMinutes(6);

    expect(await check.execute({ accountId, timelineId: timeline.id })).toEqual({ outcome: 'recorded', messages: 1 });
    expect(recorded.windowsClosed.map((closed) => closed.status)).toEqual(['expired']);
  });

  it('records nothing when the journey came home within the window', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    const { timeline } = await aJourneyUnderWay(core, accountId, { windowMinutes: 12 });
    core.clock.advanceMinutes(4);
    await core.travel.execute({ accountId, destination: 'primary' });
    const { check, recorded } = checkerOf(core);
    core.clock.advanceMinutes(20);

    expect(await check.execute({ accountId, timelineId: timeline.id })).toEqual({ outcome: 'not_closed' });
    expect(recorded.windowsClosed).toEqual([]);
  });

  it('checks again a second after the deadline when run before the window passed on its clock', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    const { timeline } = await aJourneyUnderWay(core, accountId, { windowMinutes: 12 });
    const { check, recorded } = checkerOf(core);
    core.clock.advanceMinutes(12);
    const due = new Date(timeline.createdAt.getTime() + 12 * 60_000 + 1_000);

    expect(await check.execute({ accountId, timelineId: timeline.id })).toEqual({ outcome: 'rescheduled', due });
    expect(recorded.checks).toEqual([{ check: { accountId, timelineId: timeline.id }, at: due }]);
    expect(recorded.windowsClosed).toEqual([]);
  });

  it('answers no_window for the primary timeline and for a timeline that is not there', async () => {
    const core = createTestCore();
    const accountId = await anAccount(core);
    const { check, recorded } = checkerOf(core);
    core.clock.advanceMinutes(60 * 24 * 8);

    expect(await check.execute({ accountId, timelineId: 'primary' })).toEqual({ outcome: 'no_window' });
    expect(await check.execute({ accountId, timelineId: 'tml_gone' })).toEqual({ outcome: 'no_window' });
    expect([...recorded.windowsClosed, ...recorded.checks]).toEqual([]);
  });
});
