import type { TimeRange } from '../domain/time-range';
import type { TimelineEvent } from '../domain/timeline-event';

/**
 * A place in an account's history of event changes: after the account's version `version`, and,
 * within that version's changes, after event `eventId` (null: after all of them). Versions are
 * the account's own counter, opaque decimal text to the core; the database compares them.
 */
export interface ChangePosition {
  readonly version: string;
  readonly eventId: string | null;
}

/** What a stream watches: a place (or the name of an event) on one timeline, within a time range. */
export interface WatchedPlace {
  readonly accountId: string;
  readonly timelineId: string;
  /** Compared as the listing compares it (`textKey`): the place, or an event's name. */
  readonly place: string;
  readonly range: TimeRange;
}

/** An event as one unit of work left it: recorded then (revision 0), or moved by a manipulation. */
export interface EventChange {
  readonly event: TimelineEvent;
  readonly position: ChangePosition;
  /**
   * The trace of the request that wrote the change (a W3C traceparent), when it was traced: opaque
   * here, for the edge to continue that trace where the change is delivered.
   */
  readonly origin: string | null;
}

/** What one read of changes found, and how far it looked. */
export interface ChangesRead {
  readonly changes: EventChange[];
  /**
   * The account's version as the read began (null: no traveller). With fewer than `limit` changes,
   * every change up to it has been read: a stream moves on to it even when none matched.
   */
  readonly through: string | null;
}

/** Hears an account's changes from the moment it is taken. */
export interface ChangeSubscription {
  /**
   * Resolves once the account's events have changed since the previous call (at once if they
   * already have); rejects with `FeedInterrupted` when changes can no longer be heard.
   */
  changed(): Promise<void>;
  close(): void;
}

const INTERRUPTIONS = {
  database_unavailable: 'changes of events can no longer be heard: the database is out of reach',
  shutting_down: 'the service is stopping',
  closed: 'the subscription was closed',
} as const;

/** Changes can no longer be heard: the database is lost, the service is stopping, or the subscription closed. */
export class FeedInterrupted extends Error {
  constructor(readonly reason: keyof typeof INTERRUPTIONS) {
    super(INTERRUPTIONS[reason]);
    this.name = 'FeedInterrupted';
  }
}

/** The changes of events, in the order the account's units of work wrote them. */
export interface EventFeed {
  /** The account's version now: every change up to it is readable; null for an account without a traveller. */
  versionOf(accountId: string): Promise<string | null>;
  /**
   * The changes after `after` of the events watched, in the order written, at most `limit`: an
   * event matches when it is at the place (or so named) on the timeline and its time is in the
   * range now, or was before a manipulation applied after `after` (so a stream hears an event
   * leave its range, however often it moved meanwhile).
   */
  changesAfter(watched: WatchedPlace, after: ChangePosition, limit: number): Promise<ChangesRead>;
  /**
   * Hears the account's changes from now on, made by any process sharing the database; throws
   * `FeedInterrupted` when changes cannot be heard now (the database is out of reach, the service stopping).
   */
  subscribe(accountId: string): ChangeSubscription;
}
