import { instantAt } from '../../domain/date-time';
import { DEFAULT_WINDOW_MINUTES, Timeline } from '../../domain/timeline';
import type { IdGenerator } from '../../ports/id-generator';
import type { TransactionBoundary } from '../../ports/transaction-boundary';
import type { WallClock } from '../../ports/wall-clock';

export interface CreateTimelineInput {
  readonly accountId: string;
  readonly name: string;
  readonly destinationTime: Date;
  /** Defaults to 12 minutes; the edge has already checked it is within 1..MAX_WINDOW_MINUTES. */
  readonly windowMinutes?: number;
}

export class CreateTimeline {
  constructor(
    private readonly transactions: TransactionBoundary,
    private readonly ids: IdGenerator,
    private readonly clock: WallClock,
  ) {}

  execute(input: CreateTimelineInput): Promise<Timeline> {
    return this.transactions.exclusive(input.accountId, async (repos) => {
      const timeline = Timeline.create({
        accountId: input.accountId,
        id: this.ids.newId('tml'),
        name: input.name,
        destinationTime: instantAt(input.destinationTime.getTime()),
        windowMinutes: input.windowMinutes ?? DEFAULT_WINDOW_MINUTES,
        // Read inside the lock: the window starts when the timeline is really stored.
        now: this.clock.now(),
      });
      await repos.timelines.add(timeline);
      return timeline;
    });
  }
}
