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
  sql,
} from 'kysely';
import type { DB } from '../kysely/generated/types';
import type { RunOptions, SqlRunner } from './sql-runner';

export type { DB };

/** A table by its name in PostgreSQL. */
export type Table = keyof DB;

/** Builds and prints statements; it never connects. */
export const kysely = new Kysely<DB>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

/** Where an input of a statement compiled once goes among its parameters. */
class Slot {
  constructor(readonly name: string) {}
}

/** A statement's inputs, each an expression that compiles to a parameter filled per run. */
export type Slots<I> = { readonly [K in keyof I]-?: RawBuilder<I[K]> };

/** A statement compiled once; each run fills its parameters from an input. */
export class Statement<I, R> {
  constructor(
    readonly text: string,
    /** For each parameter: the input it takes, or the constant the statement was built with. */
    private readonly sources: ReadonlyArray<{ readonly input: string } | { readonly constant: unknown }>,
  ) {}

  values(input: I): unknown[] {
    const named = input as Readonly<Record<string, unknown>>;
    return this.sources.map((source) => ('input' in source ? named[source.input] : source.constant));
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
    get: (_target, name) => sql`${new Slot(String(name))}`,
  });
  const compiled = build(slots).compile();
  return new Statement<I, R>(
    compiled.sql,
    compiled.parameters.map((parameter) =>
      parameter instanceof Slot ? { input: parameter.name } : { constant: parameter },
    ),
  );
}
