import { TimelineNotFound } from '../../domain/errors';
import type { Timeline } from '../../domain/timeline';
import type { TransactionBoundary } from '../../ports/transaction-boundary';
import type { WallClock } from '../../ports/wall-clock';

export class GetTimeline {
  constructor(
    private readonly transactions: TransactionBoundary,
    private readonly clock: WallClock,
  ) {}

  /** The timeline with its status as of now (a closed window reads as expired). */
  async execute(input: { readonly accountId: string; readonly timelineId: string }): Promise<Timeline> {
    const timeline = await this.transactions.read((repos) =>
      repos.timelines.findForAccount(input.accountId, input.timelineId),
    );
    if (!timeline) throw new TimelineNotFound(input.timelineId);
    return timeline.settledAt(this.clock.now());
  }
}
