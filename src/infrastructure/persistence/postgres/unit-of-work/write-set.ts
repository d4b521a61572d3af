// The writes of one unit of work as ONE statement. Each write is a data-modifying CTE that acts only
// when the statement's gates let it: the account's traveller still at the version the unit started
// from (the guard), and for a keyed request its Idempotency-Key claimed with the answer kept for its
// retries (the claim). A single statement commits whole or not at all, with no BEGIN or COMMIT.
import { type AliasedRawBuilder, type Kysely, type QueryCreator, type RawBuilder, type Selectable, sql } from 'kysely';
import { type DB, kysely, type Table } from '../kysely';
import type { RunOptions, SqlRunner } from '../sql-runner';
import { activeTraceparent } from '../../../telemetry/trace-context';

/** A row of a table as the service writes it: every column of schema.prisma's model, typed by Kysely. */
export type Row<T extends Table> = Selectable<DB[T]>;

/** The traveller's columns a unit may set, which the guard writes: all but the version it moves on. */
export type TravellerRow = Omit<Row<'travellers'>, 'version'>;

/** Turns PostgreSQL's refusal of the statement into the domain's answer (a taken email), if it is one. */
export type Refusal = (error: unknown) => Error | null;

type Values = Readonly<Record<string, unknown>>;

interface Write {
  readonly kind: 'insert' | 'update' | 'delete';
  readonly table: Table;
  /** The columns that name the row (for an insert, the names of its key columns, with their values). */
  readonly where: Values;
  readonly set: Values;
}

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

/** What the statement found: the traveller's new version (null: another writer came first). */
export interface Applied {
  readonly version: string | null;
  /** The key is still kept for a request (this one's retry or another's): nothing was written. */
  readonly keyTaken: boolean;
}

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

/**
 * Statements of up to this many writes are prepared on each connection (an anchor: 2). Longer ones
 * vary with their input (a travel's items) and are sent unprepared, so they do not stay prepared.
 */
const PREPARED_WRITES = 4;
/** Shapes of statement compiled and kept; a shape beyond them (many items carried) is compiled each time. */
const KEPT_SHAPES = 500;
const compiledShapes = new Map<string, Compiled>();

/**
 * Collects inserts, updates and deletes in order. A row written twice is written once with its last
 * state (an insert stays an insert; a delete replaces what came before): CTEs of one statement share
 * one snapshot, so a second write of the same row would not see the first.
 */
export class WriteSet {
  private readonly writes: Write[] = [];
  private readonly byRow = new Map<string, number>();
  private readonly refusals: Refusal[] = [];

  get isEmpty(): boolean {
    return this.writes.length === 0;
  }

  insert<T extends Table>(table: T, key: ReadonlyArray<keyof Row<T> & string>, row: Row<T>, refusal?: Refusal): void {
    const values = row as Values;
    const where = Object.fromEntries(key.map((column) => [column, values[column]]));
    this.push({ kind: 'insert', table, where, set: values });
    if (refusal) this.refusals.push(refusal);
  }

  update<T extends Table>(table: T, where: Partial<Row<T>>, set: Partial<Row<T>>): void {
    const identity = rowIdentity(table, where);
    const earlier = this.byRow.get(identity);
    const first = earlier === undefined ? undefined : this.writes[earlier];
    if (earlier === undefined || !first || first.kind === 'delete')
      return this.push({ kind: 'update', table, where, set });
    this.writes[earlier] = { ...first, set: { ...first.set, ...set } };
  }

  delete<T extends Table>(table: T, where: Partial<Row<T>>): void {
    this.push({ kind: 'delete', table, where, set: {} });
  }

  /** The domain's answer for PostgreSQL's refusal of the statement, if one of the writes knows it. */
  refusalOf(error: unknown): Error | null {
    for (const refusal of this.refusals) {
      const answer = refusal(error);
      if (answer) return answer;
    }
    return null;
  }

  /** Applies the writes in one statement behind the gates given (none: they apply unconditionally). */
  async apply(sql: SqlRunner, gates: { readonly guard?: Guard; readonly claim?: Claim } = {}): Promise<Applied> {
    const { guard, claim } = gates;
    const compiled = compile(shapeOf(this.writes, guard, claim), this.writes, guard, claim);
    const values = compiled.values(this.writes, guard, claim, activeTraceparent());
    const options: RunOptions = { prepare: this.writes.length <= PREPARED_WRITES };
    const [found] = await sql.query<{ version?: string | null; taken?: boolean }>(compiled.text, values, options);
    return { version: guard ? (found?.version ?? null) : null, keyTaken: found?.taken === true };
  }

  private push(write: Write): void {
    const identity = rowIdentity(write.table, write.where);
    const earlier = this.byRow.get(identity);
    if (write.kind === 'delete' && earlier !== undefined) {
      const first = this.writes[earlier];
      // A row inserted and deleted in one unit was never there: neither is written.
      if (first?.kind === 'insert') {
        this.writes.splice(earlier, 1);
        this.reindex();
        return;
      }
      if (first) this.writes.splice(earlier, 1);
      this.reindex();
    }
    this.writes.push(write);
    this.byRow.set(identity, this.writes.length - 1);
  }

  private reindex(): void {
    this.byRow.clear();
    this.writes.forEach((write, index) => this.byRow.set(rowIdentity(write.table, write.where), index));
  }
}

function rowIdentity(table: string, where: Values): string {
  return [table, ...Object.values(where).map(String)].join('\u0000');
}

/** What decides the text: the gates, and each write's kind, table and columns (not their values). */
function shapeOf(writes: readonly Write[], guard: Guard | undefined, claim: Claim | undefined): string {
  const parts = writes.map((write) => {
    const where = Object.entries(write.where).map(([column, value]) => (value === null ? `${column}?` : column));
    return `${write.kind} ${write.table} ${where.join(',')} ${Object.keys(write.set).join(',')}`;
  });
  const guarded = guard ? `guard ${Object.keys(guard.set ?? {}).join(',')}` : '';
  return [`${claim ? 'claim' : ''}/${guarded}`, ...parts].join('\n');
}

interface Compiled {
  readonly text: string;
  values(writes: readonly Write[], guard: Guard | undefined, claim: Claim | undefined, trace: string | null): unknown[];
}

/** Where a parameter's value comes from: a gate's input, or a write's column. */
type Source =
  | { readonly from: 'guard' | 'claim'; readonly name: string }
  | { readonly from: 'traveller'; readonly column: string }
  | { readonly from: 'trace' }
  | { readonly from: 'where' | 'set'; readonly write: number; readonly column: string };

class Slot {
  constructor(readonly source: Source) {}
}
const slot = (source: Source): RawBuilder<unknown> => sql`${new Slot(source)}`;

/** The writes' tables and columns are the rows' (typed at the repositories), so the builder takes any name. */
type AnyTables = Record<string, Record<string, unknown>>;
const builder = kysely as unknown as Kysely<AnyTables>;

function compile(
  shape: string,
  writes: readonly Write[],
  guard: Guard | undefined,
  claim: Claim | undefined,
): Compiled {
  const kept = compiledShapes.get(shape);
  if (kept) return kept;
  const query = build(writes, guard, claim).compile();
  const sources = query.parameters.map((parameter) => {
    if (parameter instanceof Slot) return parameter.source;
    throw new Error('a write statement takes every value from its writes and gates');
  });
  const compiled: Compiled = {
    text: query.sql,
    values: (current, currentGuard, currentClaim, trace) =>
      sources.map((source) => {
        switch (source.from) {
          case 'trace':
            return trace;
          case 'guard':
            return (currentGuard as unknown as Values | undefined)?.[source.name];
          case 'traveller':
            return (currentGuard?.set as Values | null | undefined)?.[source.column];
          case 'claim':
            return (currentClaim as unknown as Values | undefined)?.[source.name];
          default:
            return current[source.write]?.[source.from][source.column];
        }
      }),
  };
  if (compiledShapes.size < KEPT_SHAPES) compiledShapes.set(shape, compiled);
  return compiled;
}

/**
 * The statement: for a keyed request the traveller locked at the version read, then the key claimed
 * with the answer; the guard (moves the version on, and sets the traveller's columns, only if the
 * version is the one read); then each write, acting once per row of the last gate. It answers the
 * new version and whether the key was still kept for a request; with no gate, the writes apply as
 * they are.
 */
function build(writes: readonly Write[], guard: Guard | undefined, claim: Claim | undefined) {
  let query: QueryCreator<AnyTables> = builder;
  let gate: string | null = null;
  if (claim && guard) {
    // Locked before the claim: once the key is claimed, no other writer can move the traveller
    // past the guard, so the claim and the writes apply together or not at all.
    query = query.with('locked', (db) =>
      db
        .selectFrom('travellers')
        .select(sql`1`.as('locked'))
        .where('account_id', '=', slot({ from: 'guard', name: 'accountId' }))
        .where('version', '=', slot({ from: 'guard', name: 'version' }))
        .forUpdate(),
    ) as unknown as QueryCreator<AnyTables>;
    gate = 'locked';
  }
  if (claim) {
    const after = gate;
    query = query.with('claim', (db) => claimQuery(db, after)) as unknown as QueryCreator<AnyTables>;
    gate = 'claim';
  }
  if (guard) {
    const after = gate;
    query = query.with('guard', (db) => {
      const set: Record<string, RawBuilder<unknown>> = { version: sql`travellers.version + 1` };
      for (const column of Object.keys(guard.set ?? {}))
        if (column !== 'account_id') set[column] = slot({ from: 'traveller', column });
      const update = db.updateTable('travellers').set(set);
      return (after ? update.from(after) : update)
        .where('travellers.account_id', '=', slot({ from: 'guard', name: 'accountId' }))
        .where('travellers.version', '=', slot({ from: 'guard', name: 'version' }))
        .returning('travellers.version');
    }) as unknown as QueryCreator<AnyTables>;
    gate = 'guard';
  }
  writes.forEach((write, index) => {
    query = query.with(`w${index}`, (db) => writeQuery(db, write, index, gate)) as unknown as QueryCreator<AnyTables>;
  });
  // Not claimed because the traveller moved is a conflict, not a taken key.
  const taken = guard
    ? sql`EXISTS (SELECT 1 FROM locked) AND NOT EXISTS (SELECT 1 FROM claim)`
    : sql`NOT EXISTS (SELECT 1 FROM claim)`;
  const answers: AliasedRawBuilder<unknown, string>[] = [
    ...(guard ? [sql`(SELECT version::text FROM guard)`.as('version')] : []),
    ...(claim ? [taken.as('taken')] : []),
  ];
  return query.selectNoFrom(answers.length > 0 ? answers : [sql`1`.as('applied')]);
}

/** The key's row with the answer: inserted, or written over a free one; none if the key is still kept. */
function claimQuery(db: Creator, after: string | null) {
  const row: Record<string, RawBuilder<unknown>> = {
    account_id: slot({ from: 'claim', name: 'accountId' }),
    key: slot({ from: 'claim', name: 'key' }),
    request_digest: slot({ from: 'claim', name: 'requestDigest' }),
    created_at: slot({ from: 'claim', name: 'claimedAt' }),
    response_status: slot({ from: 'claim', name: 'responseStatus' }),
    response_body: slot({ from: 'claim', name: 'responseBody' }),
    response_headers: slot({ from: 'claim', name: 'responseHeaders' }),
  };
  const columns = Object.keys(row);
  const insert = db.insertInto('idempotency_keys').columns(columns);
  const sourced = after
    ? insert.expression((eb) =>
        eb.selectFrom(after).select(Object.entries(row).map(([column, value]) => value.as(column))),
      )
    : insert.values(row);
  return sourced
    .onConflict((conflict) =>
      conflict
        .columns(['account_id', 'key'])
        .doUpdateSet((eb) =>
          Object.fromEntries(
            columns
              .filter((column) => column !== 'account_id' && column !== 'key')
              .map((column) => [column, eb.ref(`excluded.${column}`)]),
          ),
        )
        .where((eb) =>
          eb.or([
            eb('idempotency_keys.created_at', '<=', slot({ from: 'claim', name: 'expiredBefore' })),
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
    .returning(sql`1`.as('claimed'));
}

type Creator = QueryCreator<AnyTables>;

function writeQuery(db: Creator, write: Write, index: number, gate: string | null) {
  const where = <Q extends { where: (...args: never[]) => Q }>(q: Q): Q => {
    let filtered = q;
    for (const [column, value] of Object.entries(write.where)) {
      const ref = `${write.table}.${column}`;
      filtered =
        value === null
          ? (filtered.where as (...args: unknown[]) => Q)(ref, 'is', null)
          : (filtered.where as (...args: unknown[]) => Q)(ref, '=', slot({ from: 'where', write: index, column }));
    }
    return filtered;
  };
  const stamped = gate === 'guard' ? STAMPED[write.table] : undefined;
  const traced = TRACED[write.table];
  const setSlots = Object.fromEntries(
    Object.keys(write.set).map((column) => [
      column,
      column === stamped
        ? sql`guard.version`
        : column === traced
          ? slot({ from: 'trace' })
          : slot({ from: 'set', write: index, column }),
    ]),
  );
  switch (write.kind) {
    case 'insert': {
      const columns = Object.keys(write.set);
      const insert = db.insertInto(write.table).columns(columns);
      if (!gate) return insert.values(setSlots);
      return insert.expression((eb) =>
        eb.selectFrom(gate).select(columns.map((column) => (setSlots[column] as RawBuilder<unknown>).as(column))),
      );
    }
    case 'update': {
      const update = db.updateTable(write.table).set(setSlots);
      return where(gate ? update.from(gate) : update);
    }
    case 'delete': {
      const remove = db.deleteFrom(write.table);
      return where(gate ? remove.using(gate) : remove);
    }
  }
}
