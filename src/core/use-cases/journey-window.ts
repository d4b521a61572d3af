import type { Timeline } from '../domain/timeline';
import type { Traveller } from '../domain/traveller';
import type { Repositories } from '../ports/repositories';

/** The timeline the traveller is on; every traveller stands on one of the account's timelines. */
export async function currentTimelineOf(repos: Repositories, traveller: Traveller): Promise<Timeline> {
  const timeline = await repos.timelines.findForAccount(traveller.accountId, traveller.timelineId);
  if (!timeline) throw new Error(`traveller of ${traveller.accountId} stands on a missing timeline ${traveller.timelineId}`);
  return timeline;
}

/** Away from home, acting on the journey's timeline (anchors, items) needs its window still open. */
export async function assertJourneyWindowOpen(repos: Repositories, traveller: Traveller, now: Date): Promise<void> {
  if (traveller.isHome) return;
  traveller.assertWindowOpen(await currentTimelineOf(repos, traveller), now);
}
