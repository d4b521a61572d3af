import type { ProposedName, RecordedUnderName } from '../../../../core/domain/paradox';
import type { Tally, TallyBounds } from '../../../../core/domain/tally';
import type { TimeRange } from '../../../../core/domain/time-range';
import type { EventKind, EventManipulation, ListedEvent, TimelineEvent } from '../../../../core/domain/timeline-event';
import type { EventQuery, EventRepository, EventsAt, RangePage } from '../../../../core/ports/repositories';
import type {
  EventManipulation as EventManipulationRow,
  PrismaClient,
} from '../../../database/driver/generated/client';
import type { SqlRunner } from '../../../database/driver/sql-runner';
import {
  type EventOnPage,
  EVERY_VERSION,
  type ListingRow,
  runInRange,
  runListing,
  type WholeEventRow,
} from '../statements/event-listing';
import { RECORDED_AT, TALLY_DISPLACED, TALLY_MANIPULATED, TALLY_NAMED } from '../statements/paradox-tallies';
import { textDigest } from '../text-digest';
import type { Row } from '../kysely';
import type { Writes } from '../unit-of-work/writes';

const KINDS: readonly EventKind[] = ['arrival', 'anchor_set', 'item_retrieved', 'manipulation'];

/** The columns an event is made of: every column but the two search digests. */
const EVENT_COLUMNS = {
  accountId: true,
  id: true,
  timelineId: true,
  kind: true,
  time: true,
  originalTime: true,
  description: true,
  location: true,
  subjectId: true,
  recordedAt: true,
  revision: true,
} as const;

/** A manipulation's columns as the domain has them: all but the account version a stream reads. */
const MANIPULATION_COLUMNS = {
  accountId: true,
  id: true,
  eventId: true,
  action: true,
  fromTime: true,
  toTime: true,
  appliedAt: true,
  revision: true,
} as const;
type ManipulationRow = Pick<EventManipulationRow, keyof typeof MANIPULATION_COLUMNS>;

export class PostgresEventRepository implements EventRepository {
  constructor(
    private readonly prisma: PrismaClient,
    /** For the listing, the busiest read (monitor-events, scan-events, GET /events). */
    private readonly sql: SqlRunner,
    private readonly writes: Writes,
  ) {}

  add(event: TimelineEvent): Promise<void> {
    return this.writes.insert('events', ['account_id', 'id'], eventRow(event));
  }

  save(event: TimelineEvent): Promise<void> {
    const { account_id, id, ...fields } = eventRow(event);
    return this.writes.update('events', { account_id, id }, fields);
  }

  addManipulation(manipulation: EventManipulation): Promise<void> {
    return this.writes.insert('event_manipulations', ['account_id', 'id'], {
      account_id: manipulation.accountId,
      id: manipulation.id,
      event_id: manipulation.eventId,
      action: manipulation.action,
      from_time: manipulation.fromTime,
      to_time: manipulation.toTime,
      applied_at: manipulation.appliedAt,
      revision: manipulation.revision,
      // As an event's (eventRow): the statement writes the version it moves the account to.
      account_version: '0',
    });
  }

  async findForAccount(accountId: string, eventId: string): Promise<TimelineEvent | null> {
    const row = await this.prisma.event.findUnique({
      where: { accountId_id: { accountId, id: eventId } },
      select: EVENT_COLUMNS,
    });
    return row && toDomain(row, row.accountId, row.timelineId);
  }

  /**
   * One statement finds the timeline (the traveller's, or the account's of the id given) and its
   * page, and answers one row naming it even when the page is empty, none when there is no such
   * timeline (statements/event-listing.ts).
   */
  async listAt(accountId: string, query: EventQuery): Promise<EventsAt | null> {
    const { range } = query;
    const rows = await runListing(this.sql, {
      accountId,
      placeKey: textDigest(query.place),
      start: range.start,
      end: range.end,
      limit: query.limit,
      upTo: query.writtenUpTo ?? EVERY_VERSION,
      timelineId: query.timelineId,
      after: query.after,
    });
    const found = eventsOfListing(rows, accountId);
    if (!found && query.timelineId === null)
      throw new Error(`account ${accountId} has no traveller to read events from`);
    return found;
  }

  async listInRange(accountId: string, timelineId: string, { range, after, limit }: RangePage): Promise<ListedEvent[]> {
    const rows = await runInRange(this.sql, {
      accountId,
      timelineId,
      start: range.start,
      end: range.end,
      limit,
      after,
    });
    return rows.map((row) => listedOf(row, accountId, timelineId));
  }

  async tallyNamed(
    accountId: string,
    timelineId: string,
    proposals: readonly ProposedName[],
    bounds: TallyBounds,
  ): Promise<RecordedUnderName[]> {
    const keys = proposals.map((proposal) => textDigest(proposal.name));
    const timed = proposals.flatMap((proposal, n) => proposal.times.map((time) => ({ key: keys[n], time })));
    const scope = { accountId, timelineId, listed: bounds.listed, counted: bounds.counted + 1 };
    const [rows, recorded] = await Promise.all([
      TALLY_NAMED.run(this.sql, { ...scope, keys }),
      timed.length === 0
        ? []
        : RECORDED_AT.run(this.sql, {
            accountId,
            timelineId,
            keys: timed.map((proposal) => proposal.key),
            times: timed.map((proposal) => proposal.time),
          }),
    ]);
    return proposals.map((proposal, n) => {
      const ofName = rows.filter((row) => row.key === keys[n]);
      return {
        name: proposal.name,
        events: tallied(
          ofName.map((row) => toDomain(row, accountId, timelineId)),
          ofName[0]?.total,
          bounds,
        ),
        recordedAt: recorded.filter((row) => row.key === keys[n]).map((row) => row.time),
      };
    });
  }

  async tallyDisplaced(
    accountId: string,
    timelineId: string,
    range: TimeRange | undefined,
    bounds: TallyBounds,
  ): Promise<Tally<TimelineEvent>> {
    const scope = { accountId, timelineId, listed: bounds.listed, counted: bounds.counted + 1 };
    const rows = range
      ? await TALLY_DISPLACED.withinRange.run(this.sql, { ...scope, start: range.start, end: range.end })
      : await TALLY_DISPLACED.ofTimeline.run(this.sql, scope);
    const events = rows.map((row) => toDomain(row, accountId, timelineId));
    return tallied(events, rows[0]?.total, bounds);
  }

  async tallyManipulated(
    accountId: string,
    timelineId: string,
    range: TimeRange,
    bounds: TallyBounds,
  ): Promise<Tally<string>> {
    const rows = await TALLY_MANIPULATED.run(this.sql, {
      accountId,
      timelineId,
      listed: bounds.listed,
      counted: bounds.counted + 1,
      start: range.start,
      end: range.end,
    });
    return tallied(
      rows.map((row) => row.id),
      rows[0]?.total,
      bounds,
    );
  }

  async manipulationsOf(accountId: string, eventId: string, last: number): Promise<EventManipulation[]> {
    const latest = await this.prisma.eventManipulation.findMany({
      where: { accountId, eventId },
      orderBy: { revision: 'desc' },
      take: last,
      select: MANIPULATION_COLUMNS,
    });
    return latest.reverse().map(manipulationOf);
  }
}

function manipulationOf(row: ManipulationRow): EventManipulation {
  return {
    accountId: row.accountId,
    id: row.id,
    eventId: row.eventId,
    action: row.action,
    fromTime: row.fromTime,
    toTime: row.toTime,
    appliedAt: row.appliedAt,
    revision: row.revision,
  };
}

/**
 * A tally from the first rows and the count of candidates the statement read (a bigint, as text; no
 * row, none): past the bound, the statement read one more than it, and the count says it stopped.
 */
function tallied<T>(first: T[], total: string | undefined, bounds: TallyBounds): Tally<T> {
  const read = Number(total ?? 0);
  const capped = read > bounds.counted;
  return { first, count: capped ? bounds.counted : read, capped };
}

/** The row written for an event, with the digests that searches by place and by name compare. */
export function eventRow(event: TimelineEvent): Row<'events'> {
  return {
    account_id: event.accountId,
    id: event.id,
    timeline_id: event.timelineId,
    kind: event.kind,
    time: event.time,
    original_time: event.originalTime,
    description: event.description,
    location: event.location,
    description_key: textDigest(event.description),
    location_key: textDigest(event.location),
    subject_id: event.subjectId,
    recorded_at: event.recordedAt,
    revision: event.revision,
    // The unit's statement writes the version it moves the account to (gated-statement.ts, STAMPED)
    // and the trace that wrote it (TRACED).
    account_version: '0',
    writer_trace: null,
  };
}

/**
 * A listing's rows as the timeline read and its events; null when the statement named no timeline
 * (its last row names the one it read, statements/event-listing.ts).
 */
export function eventsOfListing(rows: readonly ListingRow[], accountId: string): EventsAt | null {
  const timelineId = rows[rows.length - 1]?.readFrom;
  if (!timelineId) return null;
  // A page's rows go into the answer one by one (a hundred a page): mapped without copying each.
  const events: ListedEvent[] = [];
  for (const row of rows) if (row.readFrom === null) events.push(listedOf(row, accountId, timelineId));
  return { timelineId, events };
}

/** An event read whole (WHOLE_EVENT), of the account and timeline the statement named. */
export function toDomain(row: WholeEventRow, accountId: string, timelineId: string): TimelineEvent {
  return {
    accountId,
    id: row.id,
    timelineId,
    kind: kindOf(row),
    time: row.time,
    originalTime: row.originalTime,
    description: row.description,
    location: row.location,
    subjectId: row.subjectId,
    recordedAt: row.recordedAt,
    revision: row.revision,
  };
}

/**
 * An event of a page, of the account and timeline the statement named: its original time is its
 * current one unless it was moved.
 */
export function listedOf(row: EventOnPage, accountId: string, timelineId: string): ListedEvent {
  return {
    accountId,
    id: row.id,
    timelineId,
    kind: kindOf(row),
    time: row.time,
    originalTime: row.originalTimeIfMoved ?? row.time,
    description: row.description,
    location: row.location,
    revision: row.revision,
  };
}

function kindOf(row: { readonly id: string; readonly kind: string }): EventKind {
  const kind = KINDS.find((known) => known === row.kind);
  if (!kind) throw new Error(`Event ${row.id} has an unknown stored kind '${row.kind}'.`);
  return kind;
}
