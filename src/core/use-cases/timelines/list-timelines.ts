import type { Timeline } from '../../domain/timeline';
import type { TimelineCursor } from '../../ports/repositories';
import type { TransactionBoundary } from '../../ports/transaction-boundary';
import type { WallClock } from '../../ports/wall-clock';
import { pageSize } from '../page-size';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

export interface TimelinePage {
  readonly timelines: readonly Timeline[];
  /** Where the next page starts, or null on the last page. */
  readonly next: TimelineCursor | null;
}

/** The account's timelines, oldest first (`primary` leads), one bounded page at a time. */
export class ListTimelines {
  constructor(
    private readonly transactions: TransactionBoundary,
    private readonly clock: WallClock,
  ) {}

  async execute(input: {
    readonly accountId: string;
    readonly limit?: number;
    readonly after?: TimelineCursor | null;
  }): Promise<TimelinePage> {
    const limit = pageSize(input.limit, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
    // One extra row tells whether another page follows without a count query.
    const rows = await this.transactions.read((repos) =>
      repos.timelines.listForAccount(input.accountId, { limit: limit + 1, after: input.after ?? null }),
    );
    const now = this.clock.now();
    const timelines = rows.slice(0, limit).map((timeline) => timeline.settledAt(now));
    const last = timelines[timelines.length - 1];
    const next = rows.length > limit && last ? { createdAt: last.createdAt, id: last.id } : null;
    return { timelines, next };
  }
}
