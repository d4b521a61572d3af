// A unit of work's one statement: each write a data-modifying CTE that acts only when the
// statement's gates let it. The rows its updates change are there (a save of a row never added
// writes nothing, and the statement says so). The guard: the account's traveller still at the version the unit
// started from. The claim: a keyed request's Idempotency-Key, claimed with the answer kept for its
// retries; with a guard, the traveller is first locked at that version. A single statement commits
// whole or not at all, with no BEGIN or COMMIT. Built with slots for every value, to be compiled
// once per shape (compiled-statements.ts).
import { type AliasedRawBuilder, type QueryCreator, type RawBuilder, sql } from 'kysely';
import { type DB, kysely, type Row, slot, type Table } from '../kysely';

type Values = Readonly<Record<string, unknown>>;

/** One write of a unit: its table, the columns that name its row, and the columns it sets. */
export interface Write {
  readonly kind: 'insert' | 'update' | 'delete';
  readonly table: Table;
  /** The columns that name the row (for an insert, the names of its key columns, with their values). */
  readonly where: Values;
  readonly set: Values;
}

/** The traveller's columns a unit may set, which the guard writes: all but the version it moves on. */
export type TravellerRow = Omit<Row<'travellers'>, 'version'>;

/** The account's traveller at the version the unit started from; `set` when the unit saved it. */
export interface Guard {
  readonly accountId: string;
  readonly version: string;
  readonly set: TravellerRow | null;
}

/**
 * A keyed request's Idempotency-Key, claimed together with the answer kept for its retries: a new
 * key, or one free again (kept at or before `expiredBefore`, or claimed for the same request
 * without an answer). A key still kept for a request stays as it is.
 */
export interface Claim {
  readonly accountId: string;
  readonly key: string;
  readonly requestDigest: string;
  readonly claimedAt: Date;
  readonly expiredBefore: Date;
  readonly responseStatus: number;
  /** The answer's body and headers as JSON text. */
  readonly responseBody: string;
  readonly responseHeaders: string;
}

export interface Gates {
  readonly guard?: Guard;
  readonly claim?: Claim;
}

/** Where a parameter's value comes from: a gate's input, the unit's trace, or a write's column. */
export type Source =
  | { readonly from: 'guard'; readonly name: 'accountId' | 'version' }
  | { readonly from: 'claim'; readonly name: keyof Claim }
  | { readonly from: 'traveller'; readonly column: keyof TravellerRow }
  | { readonly from: 'trace' }
  | { readonly from: 'where' | 'set'; readonly write: number; readonly column: string };

/** A source's value in one run of the statement. */
export function valueOf(source: Source, writes: readonly Write[], gates: Gates, trace: string | null): unknown {
  switch (source.from) {
    case 'trace':
      return trace;
    case 'guard':
      return gates.guard?.[source.name];
    case 'traveller':
      return gates.guard?.set?.[source.column];
    case 'claim':
      return gates.claim?.[source.name];
    default:
      return writes[source.write]?.[source.from][source.column];
  }
}

/** A parameter filled from a gate's input, typed as the input it comes from. */
const guardInput = <K extends 'accountId' | 'version'>(name: K) => slot<Guard[K]>({ from: 'guard', name });
const claimInput = <K extends keyof Claim>(name: K) => slot<Claim[K]>({ from: 'claim', name });
const travellerInput = <C extends keyof TravellerRow>(column: C) =>
  slot<TravellerRow[C]>({ from: 'traveller', column });
/** A parameter filled from a write's column, or the unit's trace: typed at the repositories (Row<T>). */
const writeInput = (source: Source): RawBuilder<unknown> => slot(source);

/**
 * Columns that record the version the guard moves the account to: an event's place in the
 * account's history of changes, which event streams resume from (docs/decisions.md, "Event
 * streams"). The statement writes `guard.version` there, whatever the row says; a unit without a
 * guard opens an account, at version 0, and writes the row's value.
 */
const STAMPED: Partial<Record<Table, string>> = {
  events: 'account_version',
  event_manipulations: 'account_version',
};

/**
 * Columns that record the trace of the request that wrote the row (trace-context.ts), when it was
 * traced: the statement writes the unit's own, whatever the row says, so that a stream's delivery
 * of the change continues the writer's trace.
 */
const TRACED: Partial<Record<Table, string>> = {
  events: 'writer_trace',
};

/** What each gate's CTE answers, so that the gates and what follows them are typed by the schema's `DB`. */
type GateTables = {
  present: { present: number };
  locked: { locked: number };
  claim: { claimed: number };
  guard: { version: string };
};
type Gate = keyof GateTables;
type GatedCreator = QueryCreator<DB & GateTables>;
const gated: GatedCreator = kysely.withTables<GateTables>();

/**
 * The writes' tables and columns are chosen at run time, from rows typed at the repositories
 * (`Row<T>`, writes.ts): Kysely's types cannot follow a table named by a variable, so the writes
 * are built by a builder that takes any table and column name.
 */
type AnyTables = Record<string, Record<string, unknown>>;
const anyTable = kysely.withTables<AnyTables>();

/**
 * The statement: when it updates rows, whether each is there; for a keyed request the traveller
 * locked at the version read, then the key claimed with the answer; the guard (moves the version
 * on, and sets the traveller's columns, only if the version is the one read); then each write,
 * acting once per row of the last gate. It answers the new version, whether the key was still kept
 * for a request, and whether a row to update was missing; with no gate, the writes apply as they are.
 */
export function gatedStatement(writes: readonly Write[], { guard, claim }: Gates) {
  let query: GatedCreator = gated;
  let gate: Gate | null = null;
  const updates = writes.flatMap((write, index) => (write.kind === 'update' ? [{ write, index }] : []));
  if (updates.length > 0) {
    query = query.with('present', (db) =>
      db
        .selectNoFrom(sql<number>`1`.as('present'))
        .where((eb) => eb.and(updates.map(({ write, index }) => eb.exists(rowQuery(write, index))))),
    );
    gate = 'present';
  }
  if (claim && guard) {
    // Locked before the claim: once the key is claimed, no other writer can move the traveller
    // past the guard, so the claim and the writes apply together or not at all.
    const after = gate;
    query = query.with('locked', (db) => {
      const locked = db
        .selectFrom('travellers')
        .select(sql<number>`1`.as('locked'))
        .where('account_id', '=', guardInput('accountId'))
        .where('version', '=', guardInput('version'));
      return (after ? locked.where(sql<boolean>`EXISTS (SELECT 1 FROM present)`) : locked).forUpdate();
    });
    gate = 'locked';
  }
  if (claim) {
    const after = gate;
    query = query.with('claim', (db) => claimQuery(db, after));
    gate = 'claim';
  }
  if (guard) {
    const after = gate;
    query = query.with('guard', (db) => guardQuery(db, guard, after));
    gate = 'guard';
  }
  const last = gate;
  writes.forEach((write, index) => {
    query = query.with(`w${index}`, () => writeQuery(write, index, last));
  });
  // Not claimed because the traveller moved is a conflict, not a taken key.
  const taken = guard
    ? sql<boolean>`EXISTS (SELECT 1 FROM locked) AND NOT EXISTS (SELECT 1 FROM claim)`
    : sql<boolean>`NOT EXISTS (SELECT 1 FROM claim)`;
  const answers: AliasedRawBuilder<unknown, string>[] = [
    ...(guard ? [sql`(SELECT version::text FROM guard)`.as('version')] : []),
    ...(claim ? [taken.as('taken')] : []),
    ...(updates.length > 0 ? [sql<boolean>`NOT EXISTS (SELECT 1 FROM present)`.as('missing')] : []),
  ];
  return query.selectNoFrom(answers.length > 0 ? answers : [sql`1`.as('applied')]);
}

/** Moves the traveller's version on, with the columns the unit set, if it is still the one read. */
function guardQuery(db: GatedCreator, guard: Guard, after: Gate | null) {
  const set: TravellerSet = {};
  if (guard.set) for (const column of typedKeys(guard.set)) if (column !== 'account_id') setFromInput(set, column);
  const update = db.updateTable('travellers').set({ version: sql<string>`travellers.version + 1`, ...set });
  return (after ? update.from(after) : update)
    .where('travellers.account_id', '=', guardInput('accountId'))
    .where('travellers.version', '=', guardInput('version'))
    .returning('travellers.version');
}

/** The traveller's columns the unit saved, each from its input. */
type TravellerSet = { [C in keyof TravellerRow]?: RawBuilder<TravellerRow[C]> };

function setFromInput<C extends keyof TravellerRow>(set: { [K in C]?: RawBuilder<TravellerRow[K]> }, column: C): void {
  set[column] = travellerInput(column);
}

/** The keys of an object typed by the schema's row: exactly its columns, set by the repositories. */
function typedKeys<T extends object>(row: T): (keyof T & string)[] {
  return Object.keys(row) as (keyof T & string)[];
}

const aliased = <A extends string>(value: RawBuilder<unknown>, alias: A) => value.as(alias);

/** The key's row with the answer: inserted, or written over a free one; none if the key is still kept. */
function claimQuery(db: GatedCreator, after: Gate | null) {
  const row = {
    account_id: claimInput('accountId'),
    key: claimInput('key'),
    request_digest: claimInput('requestDigest'),
    created_at: claimInput('claimedAt'),
    response_status: claimInput('responseStatus'),
    response_body: claimInput('responseBody'),
    response_headers: claimInput('responseHeaders'),
  };
  const insert = db.insertInto('idempotency_keys');
  const columns = typedKeys(row);
  const sourced = after
    ? insert
        .columns(columns)
        .expression((eb) => eb.selectFrom(after).select(columns.map((column) => aliased(row[column], column))))
    : insert.values(row);
  return sourced
    .onConflict((conflict) =>
      conflict
        .columns(['account_id', 'key'])
        .doUpdateSet((eb) => ({
          request_digest: eb.ref('excluded.request_digest'),
          created_at: eb.ref('excluded.created_at'),
          response_status: eb.ref('excluded.response_status'),
          response_body: eb.ref('excluded.response_body'),
          response_headers: eb.ref('excluded.response_headers'),
        }))
        .where((eb) =>
          eb.or([
            eb('idempotency_keys.created_at', '<=', claimInput('expiredBefore')),
            // Claimed for this same request without an answer, by a process of an earlier release
            // (which claimed before acting): that process writes only while its claim is
            // unchanged, so one of the two acts.
            eb.and([
              eb('idempotency_keys.response_status', 'is', null),
              eb('idempotency_keys.request_digest', '=', eb.ref('excluded.request_digest')),
            ]),
          ]),
        ),
    )
    .returning(sql<number>`1`.as('claimed'));
}

/** One write as a CTE, acting once per row of the last gate (none: it applies as it is). */
function writeQuery(write: Write, index: number, gate: Gate | null) {
  const table: string = write.table;
  const stamped = gate === 'guard' ? STAMPED[write.table] : undefined;
  const traced = TRACED[write.table];
  const values = Object.fromEntries(
    Object.keys(write.set).map((column) => [
      column,
      column === stamped
        ? sql`guard.version`
        : column === traced
          ? writeInput({ from: 'trace' })
          : writeInput({ from: 'set', write: index, column }),
    ]),
  );
  switch (write.kind) {
    case 'insert': {
      const insert = anyTable.insertInto(table);
      if (!gate) return insert.values(values);
      const columns = Object.keys(values);
      return insert
        .columns(columns)
        .expression((eb) => eb.selectFrom(gate).select(columns.map((column) => values[column]!.as(column))));
    }
    case 'update': {
      const update = anyTable.updateTable(table).set(values);
      let named = gate ? update.from(gate) : update;
      for (const [ref, value] of rowOf(write, index))
        named = value === null ? named.where(ref, 'is', null) : named.where(ref, '=', value);
      return named;
    }
    case 'delete': {
      const remove = anyTable.deleteFrom(table);
      let named = gate ? remove.using(gate) : remove;
      for (const [ref, value] of rowOf(write, index))
        named = value === null ? named.where(ref, 'is', null) : named.where(ref, '=', value);
      return named;
    }
  }
}

/** The row a write names, as a query for it. */
function rowQuery(write: Write, index: number) {
  const table: string = write.table;
  let named = anyTable.selectFrom(table).select(sql<number>`1`.as('one'));
  for (const [ref, value] of rowOf(write, index))
    named = value === null ? named.where(ref, 'is', null) : named.where(ref, '=', value);
  return named;
}

/** The conditions that name a write's row: each column and its slot, or null. */
function rowOf(write: Write, index: number): [string, RawBuilder<unknown> | null][] {
  return Object.entries(write.where).map(([column, value]) => [
    `${write.table}.${column}`,
    value === null ? null : writeInput({ from: 'where', write: index, column }),
  ]);
}
