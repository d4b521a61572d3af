// The event listing (monitor-events, scan-events, GET /events) and the listing of a range at every
// place (monitor-paradox): each form a statement of its own, compiled once. Their plans are held by
// tests/integration/repositories/event-listing-plan.server.test.ts.
import { type ExpressionBuilder, type Selection, sql } from 'kysely';
import { MOVED_OUT_SIFTED } from '../../../../core/domain/paradox';
import { type DB, kysely, type RowOf, type Slots, type Statement, statement } from '../kysely';
import type { SqlRunner } from '../../../database/driver/sql-runner';

/** The listing's inputs: the account, the place's digest (textDigest), the range, the page size. */
interface Listing {
  readonly accountId: string;
  readonly placeKey: string;
  readonly start: Date;
  readonly end: Date;
  readonly limit: number;
  /** Only events last written by this version of the account or before (a stream's recorded part). */
  readonly upTo: string;
}

/** The `upTo` of a listing of every event: the highest version a bigint holds. */
export const EVERY_VERSION = '9223372036854775807';

/** Where a page goes on from: the last event of the page before. */
interface Cursor {
  readonly afterTime: Date;
  readonly afterId: string;
}

/** The timeline a listing reads, when named rather than the traveller's. */
interface Named {
  readonly timelineId: string;
}

/** A range of a timeline at every place. */
interface InRange {
  readonly accountId: string;
  readonly timelineId: string;
  readonly start: Date;
  readonly end: Date;
  readonly limit: number;
}

/**
 * An event's columns, named as the domain names them: all but the account and timeline, which every
 * row of a statement shares and the statement names once (two strings fewer to read for each of a
 * hundred rows). The paradox tallies read the events they list so, and the event feed its changes.
 */
export const WHOLE_EVENT = [
  'id',
  'kind',
  'time',
  'original_time as originalTime',
  'description',
  'location',
  'subject_id as subjectId',
  'recorded_at as recordedAt',
  'revision',
] as const;

/** An event as WHOLE_EVENT reads it. */
export type WholeEventRow = Selection<DB, 'events', (typeof WHOLE_EVENT)[number]>;

/**
 * An event's columns on a page of a listing (ListedEvent): what an answer shows, and the original
 * time only where it differs from the current one, as it does for the few events a manipulation
 * moved. Each column is a string node-postgres makes for every row, and each instant a Date: two
 * columns and an instant fewer a row cut what a page allocates and holds while it is read.
 */
const LISTED_EVENT = [
  'id',
  'kind',
  'time',
  sql<Date | null>`nullif(${sql.ref('events.original_time')}, ${sql.ref('events.time')})`.as('originalTimeIfMoved'),
  'description',
  'location',
  'revision',
] as const;

/** After the cursor, in the order of a page: where a page goes on from. */
function afterCursor(cursor: Slots<Cursor>) {
  return ({ eb, refTuple, tuple }: ExpressionBuilder<DB, 'events'>) =>
    eb(refTuple('time', 'id'), '>', tuple(cursor.afterTime, cursor.afterId));
}

/**
 * One form of the listing. Two ordered index ranges (place, then name), each cut at the page size,
 * merged in order: the second leaves out what the first already has (an event both at the place
 * and so named), so the merge needs no de-duplication and no sort, and the top-level ORDER BY is the
 * merge's own order (PostgreSQL's CPU per monitor-events request down by a fifth;
 * docs/performance.md). The cost: the second range reads past the events both at the place and so
 * named, which only a place named like its own events has. After the page, one row names the
 * timeline read and no event (its null time sorts last), so even an empty page tells which
 * timeline it read, and no such timeline gives no row at all.
 */
function listing(p: Slots<Listing>, cursor: Slots<Cursor> | null, named: Slots<Named> | null) {
  return kysely
    .with('here', (db) =>
      named
        ? db
            .selectFrom('timelines')
            .select('id as timeline_id')
            .where('account_id', '=', p.accountId)
            .where('id', '=', named.timelineId)
        : db.selectFrom('travellers').select('timeline_id').where('account_id', '=', p.accountId),
    )
    .selectFrom((db) => {
      const matching = (by: 'place' | 'name') =>
        db
          .selectFrom('events')
          .where('account_id', '=', p.accountId)
          .where('timeline_id', '=', (eb) => eb.selectFrom('here').select('timeline_id'))
          .where((eb) =>
            by === 'place'
              ? eb('location_key', '=', p.placeKey)
              : eb.and([eb('description_key', '=', p.placeKey), eb('location_key', '<>', p.placeKey)]),
          )
          .where('time', '>=', p.start)
          .where('time', '<=', p.end)
          .where('account_version', '<=', p.upTo)
          .$call((events) => (cursor ? events.where(afterCursor(cursor)) : events))
          .select([sql<string | null>`NULL`.as('readFrom'), ...LISTED_EVENT])
          .orderBy('time')
          .orderBy('id')
          .limit(p.limit);
      // Kysely writes a set operation's operands without parentheses, so an operand's own ORDER BY
      // and LIMIT would apply to the whole: each is a subquery of its own, planned as before.
      return db
        .selectFrom(matching('place').as('by_place'))
        .selectAll()
        .unionAll(db.selectFrom(matching('name').as('by_name')).selectAll())
        .orderBy('time')
        .orderBy('id')
        .limit(p.limit)
        .as('page');
    })
    .selectAll()
    .unionAll((eb) =>
      // Kysely's set operations take operands of one row type: the NULLs claim the event columns'
      // types here, and ListingRow says what they are.
      eb
        .selectFrom('here')
        .select([
          'timeline_id as readFrom',
          sql<string>`NULL`.as('id'),
          sql<string>`NULL`.as('kind'),
          sql<Date>`NULL`.as('time'),
          sql<Date | null>`NULL`.as('originalTimeIfMoved'),
          sql<string>`NULL`.as('description'),
          sql<string>`NULL`.as('location'),
          sql<number>`NULL`.as('revision'),
        ]),
    )
    .orderBy('time')
    .orderBy('id');
}

/**
 * One form of a timeline's events in a range at every place, paged: the events whose current time
 * is in the range, and those moved out of it by manipulation whose original time is in it. Neither
 * repeats the other; the merge is cut at the page. The first are an ordered range of the index by
 * time, cut at the page size, however many events the range holds. A cursor before the range
 * (after an event moved there) is left out of it: PostgreSQL would start that index range at the
 * cursor, not at the range's start, and read every event in between.
 */
function inRange(p: Slots<InRange>, within: Slots<Cursor> | null, movedOut: Slots<Cursor> | null) {
  const current = kysely
    .selectFrom('events')
    .where('account_id', '=', p.accountId)
    .where('timeline_id', '=', p.timelineId)
    .where('time', '>=', p.start)
    .where('time', '<=', p.end)
    .$call((query) => (within ? query.where(afterCursor(within)) : query))
    .select(LISTED_EVENT)
    .orderBy('time')
    .orderBy('id')
    .limit(p.limit);
  // Each operand a subquery of its own, as the listing's.
  return kysely
    .selectFrom(current.as('within_range'))
    .selectAll()
    .unionAll(kysely.selectFrom(movedOutOf(p, movedOut).as('moved_out')).selectAll())
    .orderBy('time')
    .orderBy('id')
    .limit(p.limit);
}

/**
 * Those moved out of the range, paged by time: sifted from the first manipulated events by original
 * time in the range, MOVED_OUT_SIFTED of them (one ordered range of the partial index of manipulated
 * events, read without its rows), and read whole for the page's alone, each by its key. Past that
 * many, `manipulated_count_capped` says so (docs/paradoxes.md).
 * Sifting the whole index range instead read every manipulated event of the range, when all happen
 * in it still (10,000 rows removed by a filter, for none).
 */
function movedOutOf(p: Slots<InRange>, cursor: Slots<Cursor> | null) {
  const candidates = kysely
    .selectFrom('events')
    .where('account_id', '=', p.accountId)
    .where('timeline_id', '=', p.timelineId)
    // A literal, as the partial index's own predicate: a parameter would not match it.
    .where('revision', '>', sql.lit(0))
    .where('original_time', '>=', p.start)
    .where('original_time', '<=', p.end)
    .select(['id', 'time'])
    .orderBy('original_time')
    .orderBy('id')
    .limit(sql.lit(MOVED_OUT_SIFTED));
  const page = kysely
    .selectFrom(candidates.as('candidate'))
    .where((eb) => eb.or([eb('time', '<', p.start), eb('time', '>', p.end)]))
    .$call((query) =>
      cursor
        ? query.where(({ eb, refTuple, tuple }) =>
            eb(refTuple('time', 'id'), '>', tuple(cursor.afterTime, cursor.afterId)),
          )
        : query,
    )
    .select(['id', 'time'])
    .orderBy('time')
    .orderBy('id')
    .limit(p.limit);
  return kysely
    .selectFrom(page.as('page'))
    .crossJoinLateral((eb) =>
      eb
        .selectFrom('events')
        .where('events.account_id', '=', p.accountId)
        .whereRef('events.id', '=', 'page.id')
        .select(LISTED_EVENT)
        .limit(sql.lit(1))
        .as('event'),
    )
    .selectAll('event');
}

/**
 * The first page; paged on from a cursor in or after the range; from one before it. Inputs:
 * accountId, timelineId, start, end, limit, then afterTime and afterId when paging on.
 */
export const IN_RANGE = {
  first: statement((p: Slots<InRange>) => inRange(p, null, null)),
  pagedOn: statement((p: Slots<InRange & Cursor>) => inRange(p, p, p)),
  fromBefore: statement((p: Slots<InRange & Cursor>) => inRange(p, null, p)),
} as const;

/** An event of a page: its columns as LISTED_EVENT reads them. */
export type EventOnPage = RowOf<typeof IN_RANGE.first>;

/**
 * A row of a listing: an event of the page, or (the last row) the timeline read, with no event.
 * Kysely types both as the first; this says which columns the last has.
 */
export type ListingRow =
  | ({ readonly readFrom: null } & EventOnPage)
  | ({ readonly readFrom: string } & { readonly [K in keyof EventOnPage]: null });

/** The listing's statement as Kysely typed it, checked to be a page's events; typed as ListingRow says. */
function listingRows<I>(typed: Statement<I, { readFrom: string | null } & EventOnPage>): Statement<I, ListingRow> {
  return typed as unknown as Statement<I, ListingRow>;
}

/**
 * The listing's four forms: on the traveller's timeline or on one named, each first or paged on
 * from a cursor. The benchmark's floor (scripts/bench/floors.ts) runs `onTraveller` and has
 * PostgreSQL write its JSON.
 */
export const LISTINGS = {
  onTraveller: listingRows(statement((p: Slots<Listing>) => listing(p, null, null))),
  onTravellerAfter: listingRows(statement((p: Slots<Listing & Cursor>) => listing(p, p, null))),
  onNamed: listingRows(statement((p: Slots<Listing & Named>) => listing(p, null, p))),
  onNamedAfter: listingRows(statement((p: Slots<Listing & Cursor & Named>) => listing(p, p, p))),
} as const;

/** A listing's inputs, its timeline and cursor optional: `listingOf` picks the form they call for. */
export interface ListingInput extends Listing {
  readonly timelineId: string | null;
  readonly after: { readonly time: Date; readonly id: string } | null;
}

/** The form of the listing `input` calls for, and its inputs as that form takes them. */
export function runListing(sql: SqlRunner, { timelineId, after, ...listing }: ListingInput): Promise<ListingRow[]> {
  const cursor = after && { afterTime: after.time, afterId: after.id };
  if (timelineId === null) {
    return cursor
      ? LISTINGS.onTravellerAfter.run(sql, { ...listing, ...cursor })
      : LISTINGS.onTraveller.run(sql, listing);
  }
  return cursor
    ? LISTINGS.onNamedAfter.run(sql, { ...listing, ...cursor, timelineId })
    : LISTINGS.onNamed.run(sql, { ...listing, timelineId });
}

/** A range's inputs, its cursor optional: `runInRange` picks the form it calls for. */
export interface InRangeInput extends InRange {
  readonly after: { readonly time: Date; readonly id: string } | null;
}

/**
 * The page of a range `input` calls for: the first, paged on from a cursor in or after the range,
 * or from one before it.
 */
export function runInRange(sql: SqlRunner, { after, ...range }: InRangeInput): Promise<EventOnPage[]> {
  if (!after) return IN_RANGE.first.run(sql, range);
  const cursor = { afterTime: after.time, afterId: after.id };
  return after.time.getTime() < range.start.getTime()
    ? IN_RANGE.fromBefore.run(sql, { ...range, ...cursor })
    : IN_RANGE.pagedOn.run(sql, { ...range, ...cursor });
}
