import { TimelineNotFound } from '../../domain/errors';
import type { TimeRange } from '../../domain/time-range';
import type { ListedEvent } from '../../domain/timeline-event';
import type { EventCursor } from '../../ports/repositories';
import type { TransactionBoundary } from '../../ports/transaction-boundary';
import { pageSize } from '../page-size';

export const DEFAULT_EVENT_PAGE_SIZE = 100;
export const MAX_EVENT_PAGE_SIZE = 500;

export interface ListEventsInput {
  readonly accountId: string;
  /** A location, or the name of an event to watch. */
  readonly place: string;
  readonly range: TimeRange;
  /** Defaults to the timeline the traveller is on: what can be observed from where they are. */
  readonly timelineId?: string;
  readonly limit?: number;
  readonly after?: EventCursor | null;
}

export interface EventPage {
  readonly timelineId: string;
  readonly events: readonly ListedEvent[];
  readonly next: EventCursor | null;
}

/** The events at a place within a time range, oldest first, one bounded page at a time. */
export class ListEvents {
  constructor(private readonly transactions: TransactionBoundary) {}

  execute(input: ListEventsInput): Promise<EventPage> {
    const limit = pageSize(input.limit, DEFAULT_EVENT_PAGE_SIZE, MAX_EVENT_PAGE_SIZE);
    // No transaction: the page comes from one query, and the timeline it names is the one that
    // query read (a travel in between changes what the next call sees, not this answer). Without
    // a timeline given, that one query also finds the traveller's; with one, it also tells whether
    // the account has it: one round trip either way.
    return this.transactions.read(async (repos) => {
      const requested = input.timelineId ?? null;
      // One extra row tells whether another page follows without a count query.
      const found = await repos.events.listAt(input.accountId, {
        timelineId: requested,
        place: input.place,
        range: input.range,
        after: input.after ?? null,
        limit: limit + 1,
      });
      // Only a timeline the request named can be missing: the traveller always stands on one.
      if (!found) throw new TimelineNotFound(requested ?? '');
      return { timelineId: found.timelineId, ...cutPage(found.events, limit) };
    });
  }
}

/** A page of `limit` events out of `rows` (read with one more), and the cursor of the next page, if any. */
export function cutPage(rows: readonly ListedEvent[], limit: number): Pick<EventPage, 'events' | 'next'> {
  const events = rows.slice(0, limit);
  const last = events[events.length - 1];
  return { events, next: rows.length > limit && last ? { time: last.time, id: last.id } : null };
}
