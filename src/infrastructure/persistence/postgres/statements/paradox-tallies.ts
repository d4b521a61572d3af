// What the paradox checks read of a timeline's displaced and manipulated events: the first few in
// order and a count up to a bound (a Tally), each from a partial index that holds those events
// alone, so that a check reads a bounded number of index entries whatever the timeline holds
// (docs/paradoxes.md#bounded-work). Their plans are held by paradox-tally-plan.server.test.ts.
import { type ExpressionBuilder, sql } from 'kysely';
import { WHOLE_EVENT } from './event-listing';
import { type DB, kysely, type RowOf, type Slots, statement } from '../kysely';

/** A timeline of the account, and how many of its events to list and to count at most. */
interface Scope {
  readonly accountId: string;
  readonly timelineId: string;
  readonly listed: number;
  /** One more than the count's bound: reading it says the count was cut. */
  readonly counted: number;
}

/** A time range of it: an event is in it when its current or its original time is. */
interface Within extends Scope {
  readonly start: Date;
  readonly end: Date;
}

/**
 * The predicates of the partial indexes (schema.prisma), written as there so that PostgreSQL sees
 * that a statement's rows are among the index's.
 */
const DISPLACED = ({ eb }: ExpressionBuilder<DB, 'events'>) =>
  eb.and([eb('subject_id', 'is not', null), eb('time', '<>', eb.ref('original_time'))]);
const MANIPULATED = ({ eb }: ExpressionBuilder<DB, 'events'>) => eb('revision', '>', sql.lit(0));
type Kind = typeof DISPLACED;

/** The columns each candidate carries: enough to order by either time without reading the row. */
const CANDIDATE = ['id', 'time', 'original_time'] as const;

function ofTimeline(p: Slots<Scope>, kind: Kind) {
  return kysely
    .selectFrom('events')
    .where('account_id', '=', p.accountId)
    .where('timeline_id', '=', p.timelineId)
    .where(kind)
    .select(CANDIDATE);
}

/** The whole timeline's, by original time: one ordered range of the index, cut at the count's bound. */
function wholeTimeline(p: Slots<Scope>, kind: Kind) {
  return ofTimeline(p, kind).orderBy('original_time').orderBy('id').limit(p.counted);
}

/**
 * A range's: those whose current time is in it, and those moved out of it whose original time is
 * in it (neither repeats the other). Each is an ordered range of an index cut at the count's bound;
 * the moved-out ones are sifted from the cut range of original times, not from the whole of it,
 * which a filter inside the scan would walk to its end when few pass. The count stays exact below
 * the bound: a cut range means more events than the bound are in the range, by one time or the
 * other. Kysely writes a set operation's operands without parentheses, so each is a subquery.
 */
function withinRange(p: Slots<Within>, kind: Kind) {
  const inRangeBy = (column: 'time' | 'original_time') =>
    ofTimeline(p, kind)
      .where(column, '>=', p.start)
      .where(column, '<=', p.end)
      .orderBy(column)
      .orderBy('id')
      .limit(p.counted);
  const current = inRangeBy('time');
  const byOriginalTime = inRangeBy('original_time');
  const movedOut = kysely
    .selectFrom(byOriginalTime.as('by_original_time'))
    .selectAll()
    .where((eb) => eb.or([eb('time', '<', p.start), eb('time', '>', p.end)]));
  return kysely
    .selectFrom(current.as('current'))
    .selectAll()
    .unionAll(kysely.selectFrom(movedOut.as('moved_out')).selectAll());
}

type Candidates = ReturnType<typeof wholeTimeline> | ReturnType<typeof withinRange>;

/**
 * The first displaced events by original time, each row carrying how many candidates were read:
 * the window counts them all before the LIMIT cuts the list. Only the listed rows are read whole,
 * each by its key: a lateral subquery with its own LIMIT, which PostgreSQL cannot turn into a join
 * that it might then run as a scan of the whole table (it did, on a table of a few thousand rows).
 */
function displaced(p: Slots<Scope>, candidates: Candidates) {
  const listed = kysely
    .selectFrom(candidates.as('candidate'))
    .select(['id', 'original_time', (eb) => eb.fn.countAll<string>().over().as('total')])
    .orderBy('original_time')
    .orderBy('id')
    .limit(p.listed);
  return kysely
    .selectFrom(listed.as('listed'))
    .crossJoinLateral((eb) =>
      eb
        .selectFrom('events')
        .where('events.account_id', '=', p.accountId)
        .whereRef('events.id', '=', 'listed.id')
        .select(WHOLE_EVENT)
        .limit(1)
        .as('event'),
    )
    .select('listed.total')
    .selectAll('event')
    .orderBy('listed.original_time')
    .orderBy('listed.id');
}

/** The ids of the first manipulated events by current time, each row carrying the candidates' count. */
function manipulated(p: Slots<Within>) {
  return kysely
    .selectFrom(withinRange(p, MANIPULATED).as('candidate'))
    .select(['id', (eb) => eb.fn.countAll<string>().over().as('total')])
    .orderBy('time')
    .orderBy('id')
    .limit(p.listed);
}

/** Names (their digests) whose events to tally, on a timeline of the account. */
interface Names extends Scope {
  readonly keys: readonly string[];
}

/** The list of names, one row each. */
type WithNames = DB & { name: { key: string } };

/** The timeline's events under one name of the `name` list, in the index's order: (name, time, id). */
function underName(p: Slots<Scope>, eb: ExpressionBuilder<WithNames, 'name'>) {
  return eb
    .selectFrom('events')
    .where('events.account_id', '=', p.accountId)
    .where('events.timeline_id', '=', p.timelineId)
    .whereRef('events.description_key', '=', 'name.key');
}

/**
 * For each name, its first events by time then id, each row carrying how many of that name the
 * statement counted (up to the bound; a name with none answers no row). Both are ordered ranges of
 * the index on (name, time, id), cut by their LIMITs: a lateral subquery per name, not a join.
 */
function named(p: Slots<Names>) {
  return kysely
    .selectFrom(sql<{ key: string }>`unnest(${p.keys}::text[])`.as<'name'>(sql`name(key)`))
    .crossJoinLateral((eb) =>
      eb
        .selectFrom(underName(p, eb).select('events.id').limit(p.counted).as('counted'))
        .select((eb) => eb.fn.countAll<string>().as('total'))
        .as('tally'),
    )
    .crossJoinLateral((eb) =>
      underName(p, eb).select(WHOLE_EVENT).orderBy('events.time').orderBy('events.id').limit(p.listed).as('event'),
    )
    .select(['name.key', 'tally.total'])
    .selectAll('event');
}

/** Proposed times, each with the digest of its name: `keys[i]` at `times[i]`. */
interface Proposals {
  readonly accountId: string;
  readonly timelineId: string;
  readonly keys: readonly string[];
  readonly times: readonly Date[];
}

/** Those of the proposals at whose time an event of that name is recorded: one index probe each. */
function recordedAt(p: Slots<Proposals>) {
  return kysely
    .selectFrom(
      sql<{ key: string; time: Date }>`unnest(${p.keys}::text[], ${p.times}::timestamptz[])`.as<'proposal'>(
        sql`proposal(key, time)`,
      ),
    )
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('events')
          .where('events.account_id', '=', p.accountId)
          .where('events.timeline_id', '=', p.timelineId)
          .whereRef('events.description_key', '=', 'proposal.key')
          .whereRef('events.time', '=', 'proposal.time')
          .select(sql.lit(1).as('found')),
      ),
    )
    .select(['proposal.key', 'proposal.time']);
}

export const TALLY_NAMED = statement((p: Slots<Names>) => named(p));
export const RECORDED_AT = statement((p: Slots<Proposals>) => recordedAt(p));

export const TALLY_DISPLACED = {
  ofTimeline: statement((p: Slots<Scope>) => displaced(p, wholeTimeline(p, DISPLACED))),
  withinRange: statement((p: Slots<Within>) => displaced(p, withinRange(p, DISPLACED))),
} as const;

export const TALLY_MANIPULATED = statement((p: Slots<Within>) => manipulated(p));

/** A listed displaced event, with the count of candidates read (a bigint, as text). */
export type DisplacedRow = RowOf<typeof TALLY_DISPLACED.ofTimeline>;
