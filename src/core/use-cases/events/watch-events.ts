import { isLaterVersion } from '../../domain/account-version';
import { TimelineNotFound } from '../../domain/errors';
import type { TimeRange } from '../../domain/time-range';
import type { ListedEvent } from '../../domain/timeline-event';
import type { ChangePosition, ChangeSubscription, EventFeed, WatchedPlace } from '../../ports/event-feed';
import type { EventCursor, EventsAt } from '../../ports/repositories';
import type { TransactionBoundary } from '../../ports/transaction-boundary';

/** Events read per statement, in both parts of a stream. */
export const WATCH_PAGE_SIZE = 100;

/**
 * Where a stream stands, enough to resume it in any process. A stream first sends the events
 * recorded when it opened, as the listing orders them ("recorded": every event last written by
 * the account's version `upTo` or before, after `after`), then every change written after that
 * version, in the order written ("changes").
 */
export type StreamPosition =
  | {
      readonly part: 'recorded';
      readonly timelineId: string;
      readonly upTo: string;
      readonly after: EventCursor | null;
    }
  | { readonly part: 'changes'; readonly timelineId: string; readonly after: ChangePosition };

/**
 * What a stream sends: an event as first seen (`recorded`: the recorded part, or a new event), an
 * event a manipulation moved (`updated`: its whole new state, which may be outside the range now),
 * and once per stream `caught-up`, when all that was recorded before has been sent.
 */
export type Watched =
  | {
      readonly kind: 'recorded' | 'updated';
      readonly event: ListedEvent;
      readonly position: StreamPosition;
      /** A change's writer's trace (EventChange.origin); null in the recorded part. */
      readonly origin: string | null;
    }
  | { readonly kind: 'caught-up'; readonly position: StreamPosition };

export interface WatchEventsInput {
  readonly accountId: string;
  readonly place: string;
  readonly range: TimeRange;
  /** Defaults to the timeline the traveller is on when the stream opens (a resumed stream keeps its own). */
  readonly timelineId?: string;
  /** Where a stream that dropped stood (its last message's position); null for a new stream. */
  readonly from: StreamPosition | null;
}

/**
 * A resumed position beyond the account's version now: no stream of this account wrote it. The
 * edge refuses it as it refuses a position it cannot read.
 */
export class UnreachedStreamPosition extends Error {
  constructor(readonly version: string) {
    super(`no stream of this account stood at version ${version}: its history has not reached it`);
    this.name = 'UnreachedStreamPosition';
  }
}

/** An open stream: its messages, until `close()` or until changes can no longer be heard. */
export interface EventWatch extends AsyncIterable<Watched> {
  readonly timelineId: string;
  close(): void;
}

/**
 * The events at a place within a time range, and then each change of them as it is written, by
 * any process: a resumable stream. Its first read happens in `open`, so an unknown timeline is
 * refused before anything is streamed.
 */
export class WatchEvents {
  constructor(
    private readonly transactions: TransactionBoundary,
    private readonly feed: EventFeed,
  ) {}

  async open(input: WatchEventsInput): Promise<EventWatch> {
    // Taken first: a change written while the first pages are read is heard, not lost.
    const subscription = this.feed.subscribe(input.accountId);
    try {
      return await this.start(input, subscription);
    } catch (error) {
      subscription.close();
      throw error;
    }
  }

  private async start(input: WatchEventsInput, subscription: ChangeSubscription): Promise<EventWatch> {
    const { accountId, place, range, from } = input;
    if (from) await this.checkResumable(accountId, from);
    if (from?.part === 'changes') {
      const watched = { accountId, timelineId: from.timelineId, place, range };
      return watch(from.timelineId, subscription, this.changes(watched, from.after, subscription));
    }
    const upTo = from?.upTo ?? (await this.versionNow(accountId));
    const requested = from?.timelineId ?? input.timelineId ?? null;
    const after = from?.after ?? null;
    const first = await this.recordedPage(accountId, { place, range, upTo }, requested, after);
    if (!first) throw new TimelineNotFound(requested ?? '');
    const watched = { accountId, timelineId: first.timelineId, place, range };
    return watch(first.timelineId, subscription, this.recordedThenChanges(watched, upTo, first, subscription));
  }

  /** The recorded part, a page at a time from the first, then the changes written after it. */
  private async *recordedThenChanges(
    watched: WatchedPlace,
    upTo: string,
    first: EventsAt,
    subscription: ChangeSubscription,
  ): AsyncGenerator<Watched> {
    const { accountId, timelineId, place, range } = watched;
    let page: EventsAt | null = first;
    while (page) {
      let last: EventCursor | null = null;
      for (const event of page.events.slice(0, WATCH_PAGE_SIZE)) {
        last = { time: event.time, id: event.id };
        yield { kind: 'recorded', event, position: { part: 'recorded', timelineId, upTo, after: last }, origin: null };
      }
      const more: boolean = page.events.length > WATCH_PAGE_SIZE;
      page = more ? await this.recordedPage(accountId, { place, range, upTo }, timelineId, last) : null;
    }
    yield* this.changes(watched, { version: upTo, eventId: null }, subscription);
  }

  /**
   * A resumed position is checked as a new stream is: its timeline is one of the account's (a new
   * stream's first read finds it or is refused), and the account has reached its version.
   */
  private async checkResumable(accountId: string, from: StreamPosition): Promise<void> {
    const timeline = await this.transactions.read((repos) =>
      repos.timelines.findForAccount(accountId, from.timelineId),
    );
    if (!timeline) throw new TimelineNotFound(from.timelineId);
    const version = from.part === 'changes' ? from.after.version : from.upTo;
    if (isLaterVersion(version, await this.versionNow(accountId))) throw new UnreachedStreamPosition(version);
  }

  private async versionNow(accountId: string): Promise<string> {
    const version = await this.feed.versionOf(accountId);
    if (version === null) throw new Error(`account ${accountId} has no traveller to watch events from`);
    return version;
  }

  private recordedPage(
    accountId: string,
    query: { readonly place: string; readonly range: TimeRange; readonly upTo: string },
    timelineId: string | null,
    after: EventCursor | null,
  ): Promise<EventsAt | null> {
    // One more than a page tells whether another follows.
    return this.transactions.read((repos) =>
      repos.events.listAt(accountId, {
        timelineId,
        place: query.place,
        range: query.range,
        after,
        limit: WATCH_PAGE_SIZE + 1,
        writtenUpTo: query.upTo,
      }),
    );
  }

  /** Every change after `after`, as written; `caught-up` once the first reads have found them all. */
  private async *changes(
    watched: WatchedPlace,
    after: ChangePosition,
    subscription: ChangeSubscription,
  ): AsyncGenerator<Watched> {
    let position: StreamPosition = { part: 'changes', timelineId: watched.timelineId, after };
    let caughtUp = false;
    for (;;) {
      const read = await this.feed.changesAfter(watched, position.after, WATCH_PAGE_SIZE);
      for (const change of read.changes) {
        position = { part: 'changes', timelineId: watched.timelineId, after: change.position };
        // An event's first write leaves it at revision 0; each manipulation moves the revision on.
        const kind = change.event.revision === 0 ? 'recorded' : 'updated';
        yield { kind, event: change.event, position, origin: change.origin };
      }
      if (read.changes.length === WATCH_PAGE_SIZE) continue;
      // Everything up to `through` has been read: the next read starts there, not where the last
      // change of the place was (which may be the account's whole history back).
      if (read.through !== null && isLaterVersion(read.through, position.after.version))
        position = { part: 'changes', timelineId: watched.timelineId, after: { version: read.through, eventId: null } };
      if (!caughtUp) {
        caughtUp = true;
        yield { kind: 'caught-up', position };
      }
      await subscription.changed();
    }
  }
}

function watch(timelineId: string, subscription: ChangeSubscription, messages: AsyncGenerator<Watched>): EventWatch {
  return {
    timelineId,
    [Symbol.asyncIterator]: () => messages,
    close() {
      subscription.close();
      void messages.return(undefined);
    },
  };
}
