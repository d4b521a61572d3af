import type { TimeRange } from '../../../../core/domain/time-range';
import { textDigest } from '../text-digest';
import type { EventKind, EventManipulation, TimelineEvent } from '../../../../core/domain/timeline-event';
import type { EventQuery, EventRepository, EventsAt, RangePage } from '../../../../core/ports/repositories';
import type { Db } from '../db';
import { prismaSql, type SqlRunner } from '../sql-runner';
import { EVENTS, selectList } from '../tables';

const KINDS: readonly EventKind[] = ['arrival', 'anchor_set', 'item_retrieved', 'manipulation'];

type EventRow = Omit<TimelineEvent, 'kind'> & { kind: string; descriptionKey: string; locationKey: string };

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

/**
 * EVENT_COLUMNS for the listing, named as the domain names them: all but the account and timeline,
 * which every row of a page shares and the statement names once (two strings fewer to read for
 * each of a page's hundred rows).
 */
const NOT_ON_PAGE = ['descriptionKey', 'locationKey', 'accountId', 'timelineId'] as const;
const PAGE_SELECT = selectList(EVENTS, NOT_ON_PAGE);
/** The same columns, none of them an event's: the row that names the timeline read. */
const NO_EVENT = Object.keys(EVENTS.types)
  .filter((field) => !NOT_ON_PAGE.some((left) => left === field))
  .map(() => 'NULL')
  .join(', ');

type PageRow = Omit<EventRow, (typeof NOT_ON_PAGE)[number]>;

/**
 * The listing's text, written out once for each form rather than built with Prisma.sql for every
 * request (which showed in the profile of every read; docs/performance.md). Parameters: $1 account,
 * $2 the place's digest, $3-$4 the range, $5 the page size; then the cursor's time and id when
 * paging on; then the timeline when one is named.
 *
 * Two ordered index ranges (place, then name), each cut at the page size, merged in order: the
 * second leaves out what the first already has (an event both at the place and so named), so the
 * merge needs no de-duplication and no sort, and the top-level ORDER BY is the merge's own order
 * (PostgreSQL's CPU per monitor-events request down by a fifth; docs/performance.md). The cost:
 * the second range reads past the events both at the place and so named, which only a place
 * named like its own events has. After the page, one row names the timeline read and no event
 * (its null time sorts last), so even an empty page tells which timeline it read, and no such
 * timeline gives no row at all.
 */
function listingText(byTimeline: boolean, pagedOn: boolean): string {
  const here = byTimeline
    ? `SELECT id AS timeline_id FROM timelines WHERE account_id = $1 AND id = $${pagedOn ? 8 : 6}`
    : 'SELECT timeline_id FROM travellers WHERE account_id = $1';
  const matching = (condition: string) => `
    (SELECT NULL AS "readFrom", ${PAGE_SELECT} FROM events
      WHERE account_id = $1 AND timeline_id = (SELECT timeline_id FROM here) AND ${condition}
        AND time >= $3 AND time <= $4${pagedOn ? ' AND (time, id) > ($6, $7)' : ''}
      ORDER BY time, id LIMIT $5)`;
  return `
    WITH here AS (${here})
    SELECT * FROM (
      ${matching('location_key = $2')}
      UNION ALL ${matching('description_key = $2 AND location_key <> $2')}
      ORDER BY "time", "id" LIMIT $5
    ) page
    UNION ALL (SELECT timeline_id, ${NO_EVENT} FROM here)
    ORDER BY "time", "id"`;
}

/**
 * By the traveller's timeline, then paged on; by a timeline named, then paged on. Exported for the
 * benchmark's floor (scripts/bench/floors.ts), which runs the same text and has PostgreSQL write
 * the page's JSON.
 */
export const LISTINGS = [
  listingText(false, false),
  listingText(false, true),
  listingText(true, false),
  listingText(true, true),
] as const;

/**
 * A timeline's events in a range at every place, paged; $1 account, $2 timeline, $3-$4 the range,
 * $5 the page size, then the cursor's time and id when paging on. Two ordered index ranges, each
 * cut at the page size and merged in order as the listing's: the events whose current time is in
 * the range (the index by time), and the few moved out of it by manipulation whose original time
 * is in it (the index of manipulated events). Neither repeats the other, and neither reads past
 * the page, however many events the range holds. A cursor before the range (after an event moved
 * there) is left out of the first: PostgreSQL would start that index range at the cursor, not at
 * the range's start, and read every event in between.
 */
function inRangeText(pagedWithin: boolean, pagedMovedOut: boolean): string {
  const after = (paged: boolean) => (paged ? ' AND (time, id) > ($6, $7)' : '');
  return `
    (SELECT ${PAGE_SELECT} FROM events
      WHERE account_id = $1 AND timeline_id = $2 AND time >= $3 AND time <= $4${after(pagedWithin)}
      ORDER BY time, id LIMIT $5)
    UNION ALL
    (SELECT ${PAGE_SELECT} FROM events
      WHERE account_id = $1 AND timeline_id = $2 AND revision > 0 AND original_time >= $3 AND original_time <= $4
        AND (time < $3 OR time > $4)${after(pagedMovedOut)}
      ORDER BY time, id LIMIT $5)
    ORDER BY "time", "id" LIMIT $5`;
}

/**
 * The first page; paged on from a cursor in or after the range; from one before it. Exported for
 * the plan test (tests/integration/repositories/event-listing-plan.server.test.ts).
 */
export const IN_RANGE = {
  first: inRangeText(false, false),
  pagedOn: inRangeText(true, true),
  fromBefore: inRangeText(false, true),
} as const;

export class PrismaEventRepository implements EventRepository {
  constructor(
    private readonly db: Db,
    /** For the listing, the busiest read (monitor-events, scan-events, GET /events). */
    private readonly sql: SqlRunner = prismaSql(db),
  ) {}

  async add(event: TimelineEvent): Promise<void> {
    await this.db.event.create({ data: eventRow(event) });
  }

  async save(event: TimelineEvent): Promise<void> {
    const { accountId, id, ...fields } = eventRow(event);
    await this.db.event.update({ where: { accountId_id: { accountId, id } }, data: fields });
  }

  async findForAccount(accountId: string, eventId: string): Promise<TimelineEvent | null> {
    const row = await this.db.event.findUnique({
      where: { accountId_id: { accountId, id: eventId } },
      select: EVENT_COLUMNS,
    });
    return row && toDomain(row, row.accountId, row.timelineId);
  }

  /**
   * One ordered index range per key (place, then name), each cut at the page size, merged: the
   * planner walks two indexes in time order instead of collecting every match of a wide range into
   * a bitmap and sorting it (70 ms against 1 ms for a century at a busy place; docs/performance.md).
   * The same statement finds the timeline (the traveller's, or the account's of the id given) and
   * answers one row naming it even when the page is empty, none when there is no such timeline.
   */
  async listAt(accountId: string, query: EventQuery): Promise<EventsAt | null> {
    const { after, range, limit } = query;
    const values: unknown[] = [accountId, textDigest(query.place), range.start, range.end, limit];
    if (after) values.push(after.time, after.id);
    if (query.timelineId !== null) values.push(query.timelineId);
    const text = LISTINGS[(query.timelineId === null ? 0 : 2) + (after ? 1 : 0)];
    const rows = await this.sql.query<{ readFrom: string | null } & Partial<PageRow>>(text, values);
    const timelineId = rows[rows.length - 1]?.readFrom;
    if (!timelineId) {
      if (query.timelineId === null) throw new Error(`account ${accountId} has no traveller to read events from`);
      return null;
    }
    // A page's rows go into the answer one by one (a hundred a page): mapped without copying each.
    const events: TimelineEvent[] = [];
    for (const row of rows) if (isPageRow(row)) events.push(toDomain(row, accountId, timelineId));
    return { timelineId, events };
  }

  async listInRange(
    accountId: string,
    timelineId: string,
    { range, after, limit }: RangePage,
  ): Promise<TimelineEvent[]> {
    const values: unknown[] = [accountId, timelineId, range.start, range.end, limit];
    if (after) values.push(after.time, after.id);
    const text = !after
      ? IN_RANGE.first
      : after.time.getTime() < range.start.getTime()
        ? IN_RANGE.fromBefore
        : IN_RANGE.pagedOn;
    const rows = await this.sql.query<PageRow>(text, values);
    return rows.map((row) => toDomain(row, accountId, timelineId));
  }

  async findNamed(
    accountId: string,
    timelineId: string,
    names: readonly string[],
    range?: TimeRange,
  ): Promise<TimelineEvent[]> {
    const rows = await this.db.event.findMany({
      where: { accountId, timelineId, descriptionKey: { in: [...new Set(names.map(textDigest))] }, ...inRange(range) },
      orderBy: [{ time: 'asc' }, { id: 'asc' }],
      select: EVENT_COLUMNS,
    });
    return rows.map((row) => toDomain(row, row.accountId, row.timelineId));
  }

  async findManipulated(accountId: string, timelineId: string, range?: TimeRange): Promise<TimelineEvent[]> {
    const rows = await this.db.event.findMany({
      where: { accountId, timelineId, revision: { gt: 0 }, ...inRange(range) },
      orderBy: [{ time: 'asc' }, { id: 'asc' }],
      select: EVENT_COLUMNS,
    });
    return rows.map((row) => toDomain(row, row.accountId, row.timelineId));
  }

  async addManipulation(manipulation: EventManipulation): Promise<void> {
    await this.db.eventManipulation.create({ data: manipulation });
  }

  manipulationsOf(accountId: string, eventId: string): Promise<EventManipulation[]> {
    return this.db.eventManipulation.findMany({ where: { accountId, eventId }, orderBy: { revision: 'asc' } });
  }
}

/** An event is in a monitored range when it happens there now, or happened there before a manipulation. */
function inRange(range: TimeRange | undefined) {
  if (!range) return {};
  const within = { gte: range.start, lte: range.end };
  return { OR: [{ time: within }, { originalTime: within }] };
}

export function eventRow(event: TimelineEvent): EventRow {
  return { ...event, descriptionKey: textDigest(event.description), locationKey: textDigest(event.location) };
}

/** A row that carries an event: every row but the last, which names the timeline read. */
function isPageRow(row: Partial<PageRow>): row is PageRow {
  return typeof row.id === 'string';
}

function toDomain(row: PageRow, accountId: string, timelineId: string): TimelineEvent {
  const kind = KINDS.find((known) => known === row.kind);
  if (!kind) throw new Error(`Event ${row.id} has an unknown stored kind '${row.kind}'.`);
  return {
    accountId,
    id: row.id,
    timelineId,
    kind,
    time: row.time,
    originalTime: row.originalTime,
    description: row.description,
    location: row.location,
    subjectId: row.subjectId,
    recordedAt: row.recordedAt,
    revision: row.revision,
  };
}
