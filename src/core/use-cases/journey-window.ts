import { TimelineWindowExpired } from '../domain/errors';
import type { Timeline } from '../domain/timeline';
import type { Traveller } from '../domain/traveller';
import type { Repositories } from '../ports/repositories';
import type { TransactionBoundary } from '../ports/transaction-boundary';
import type { WallClock } from '../ports/wall-clock';

/** The timeline the traveller is on; every traveller stands on one of the account's timelines. */
export async function currentTimelineOf(repos: Repositories, traveller: Traveller): Promise<Timeline> {
  const timeline = await repos.timelines.findForAccount(traveller.accountId, traveller.timelineId);
  if (!timeline)
    throw new Error(`traveller of ${traveller.accountId} stands on a missing timeline ${traveller.timelineId}`);
  return timeline;
}

/** Away from home, acting on the journey's timeline (anchors, items) needs its window still open. */
export async function assertJourneyWindowOpen(repos: Repositories, traveller: Traveller, now: Date): Promise<void> {
  if (traveller.isHome) return;
  traveller.assertWindowOpen(await currentTimelineOf(repos, traveller), now);
}

/**
 * The account's exclusive work, for actions a closed travel window can refuse. The refusal is
 * recorded even so: the refused transaction rolled back, so the timeline is stored as `expired` in
 * a transaction of its own before the refusal reaches the caller.
 */
export async function exclusiveRecordingExpiry<T>(
  transactions: TransactionBoundary,
  clock: WallClock,
  accountId: string,
  work: (repos: Repositories) => Promise<T>,
): Promise<T> {
  try {
    return await transactions.exclusive(accountId, work);
  } catch (error) {
    if (error instanceof TimelineWindowExpired) {
      await transactions.exclusive(accountId, async (repos) => {
        const timeline = await repos.timelines.findForAccount(accountId, error.timelineId);
        if (timeline) await repos.timelines.save(timeline.settledAt(clock.now()));
      });
    }
    throw error;
  }
}
