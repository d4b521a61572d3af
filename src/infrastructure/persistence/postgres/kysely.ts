// Statements typed by schema.prisma: Kysely checks every table, column and alias against the `DB`
// type that prisma-kysely generates from it, and infers the rows. Each statement is compiled once,
// when its module loads, and sent as text through the SqlRunner: building a query per request
// costs half again its CPU (docs/decisions.md#typed-sql-beside-prisma-client).
import {
  type Compilable,
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type RawBuilder,
  type Selectable,
  sql,
} from 'kysely';
import type { DB } from '../kysely/generated/types';
import type { RunOptions, SqlRunner } from '../../database/driver/sql-runner';

export type { DB };

/** A table by its name in PostgreSQL. */
export type Table = keyof DB;

/** A row of a table as the service writes it: every column of schema.prisma's model, typed by Kysely. */
export type Row<T extends Table> = Selectable<DB[T]>;

/** Builds and prints statements; it never connects. */
export const kysely = new Kysely<DB>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

/** A parameter of a statement compiled once: filled on each run from where `source` says. */
class Slot {
  constructor(readonly source: unknown) {}
}

/** An expression that compiles to a parameter filled on each run from `source`. */
export function slot<T = unknown>(source: unknown): RawBuilder<T> {
  return sql<T>`${new Slot(source)}`;
}

/** Where a parameter of a statement compiled once takes its value: a slot, or the constant it was built with. */
export type Parameter<S> = { readonly slot: S } | { readonly constant: unknown };

/** A statement compiled once: its text, and where each of its parameters takes its value. */
export interface Compiled<S> {
  readonly text: string;
  readonly parameters: ReadonlyArray<Parameter<S>>;
}

/**
 * Compiles `query` once, each `slot(source)` in it a parameter to fill on each run. The one way
 * statements are compiled once: by `statement` here, and by a unit of work's statement, one per
 * shape (unit-of-work/compiled-statements.ts). `S` is the type of source the builder gave its slots.
 */
export function compileOnce<S>(query: Compilable<unknown>): Compiled<S> {
  const compiled = query.compile();
  return {
    text: compiled.sql,
    parameters: compiled.parameters.map((parameter) =>
      parameter instanceof Slot ? { slot: parameter.source as S } : { constant: parameter },
    ),
  };
}

/** A statement's inputs, each an expression that compiles to a parameter filled per run. */
export type Slots<I> = { readonly [K in keyof I]-?: RawBuilder<I[K]> };

/** A statement compiled once; each run fills its parameters from an input. */
export class Statement<I, R> {
  constructor(private readonly compiled: Compiled<string>) {}

  get text(): string {
    return this.compiled.text;
  }

  values(input: I): unknown[] {
    const named = input as Readonly<Record<string, unknown>>;
    return this.compiled.parameters.map((parameter) =>
      'slot' in parameter ? named[parameter.slot] : parameter.constant,
    );
  }

  run(sql: SqlRunner, input: I, options?: RunOptions): Promise<R[]> {
    return sql.query<R>(this.text, this.values(input), options);
  }
}

/** The row a statement answers, as Kysely inferred it from the query. */
export type RowOf<S> = S extends Statement<never, infer R> ? R : never;

/**
 * Compiles `build` once, its inputs as slots: `statement<{ id: string }, _>((p) =>
 * kysely.selectFrom('anchors').selectAll().where('id', '=', p.id))`. An input may occur several times.
 */
export function statement<I extends object, R>(build: (inputs: Slots<I>) => Compilable<R>): Statement<I, R> {
  const slots = new Proxy({} as Slots<I>, {
    get: (_target, name) => slot(String(name)),
  });
  return new Statement<I, R>(compileOnce<string>(build(slots)));
}
