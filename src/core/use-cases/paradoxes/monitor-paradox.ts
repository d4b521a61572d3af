import { CHECK_BOUNDS, type StabilityVerdict } from '../../domain/paradox';
import type { Tally } from '../../domain/tally';
import type { TimeRange } from '../../domain/time-range';
import type { ListedEvent } from '../../domain/timeline-event';
import type { EventCursor } from '../../ports/repositories';
import type { TransactionBoundary } from '../../ports/transaction-boundary';
import { cutPage, DEFAULT_EVENT_PAGE_SIZE, MAX_EVENT_PAGE_SIZE } from '../events/list-events';
import { pageSize } from '../page-size';
import type { CheckParadox } from './check-paradox';

export interface MonitorParadoxInput {
  readonly accountId: string;
  readonly timelineId: string;
  readonly range: TimeRange;
  readonly limit?: number;
  readonly after?: EventCursor | null;
}

export interface ParadoxMonitoring extends StabilityVerdict {
  /** The ids of the range's manipulated events, oldest first, and their count. */
  readonly manipulated: Tally<string>;
  /** One page of the range's events, manipulated or not, at every place, oldest first. */
  readonly events: readonly ListedEvent[];
  readonly next: EventCursor | null;
}

/**
 * monitor-paradox: the timeline's events whose current or original time is in the range, a page at
 * a time, with the verdict on the range (its manipulated events), read in one snapshot so that the
 * page and the verdict agree.
 */
export class MonitorParadox {
  constructor(
    private readonly transactions: TransactionBoundary,
    private readonly checks: CheckParadox,
  ) {}

  execute(input: MonitorParadoxInput): Promise<ParadoxMonitoring> {
    const limit = pageSize(input.limit, DEFAULT_EVENT_PAGE_SIZE, MAX_EVENT_PAGE_SIZE);
    const { accountId, timelineId, range } = input;
    return this.transactions.snapshot(accountId, async (repos) => {
      // First: it refuses a timeline the account does not have.
      const verdict = await this.checks.checkIn(repos, { accountId, timelineId, range });
      const [manipulated, rows] = await Promise.all([
        repos.events.tallyManipulated(accountId, timelineId, range, CHECK_BOUNDS),
        // One extra row tells whether another page follows without a count query.
        repos.events.listInRange(accountId, timelineId, { range, after: input.after ?? null, limit: limit + 1 }),
      ]);
      return {
        stable: verdict.stable,
        reasons: verdict.reasons,
        reasonCount: verdict.reasonCount,
        reasonCountCapped: verdict.reasonCountCapped,
        manipulated,
        ...cutPage(rows, limit),
      };
    });
  }
}
