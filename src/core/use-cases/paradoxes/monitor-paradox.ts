import type { StabilityVerdict } from '../../domain/paradox';
import type { TimeRange } from '../../domain/time-range';
import type { TimelineEvent } from '../../domain/timeline-event';
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
  /** Every manipulated event of the range, oldest first: what the verdict weighed. */
  readonly manipulated: readonly TimelineEvent[];
  /** One page of the range's events, manipulated or not, at every place, oldest first. */
  readonly events: readonly TimelineEvent[];
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
      const report = await this.checks.checkIn(repos, { accountId, timelineId, range });
      // One extra row tells whether another page follows without a count query.
      const rows = await repos.events.listInRange(accountId, timelineId, {
        range,
        after: input.after ?? null,
        limit: limit + 1,
      });
      return { stable: report.stable, reasons: report.reasons, manipulated: report.events, ...cutPage(rows, limit) };
    });
  }
}
