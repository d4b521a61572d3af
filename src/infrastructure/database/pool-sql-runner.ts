import { DatabaseError, types, type CustomTypesConfig, type Pool, type PoolClient, type QueryResultRow } from 'pg';
import { ROLLED_BACK_AT_COMMIT, type RunOptions, sqlParameter, type SqlRunner } from '../persistence/prisma/sql-runner';
import { statementName } from './statement-names';

const TIMESTAMPTZ = 1184;
const parseAnyTimestamp = types.getTypeParser(TIMESTAMPTZ, 'text');

/**
 * A UTC session (every connection is one: prisma-client.ts) prints an instant as
 * `YYYY-MM-DD hh:mm:ss[.ffffff]+00`; its digits are read where they stand, in about a third of the
 * time of building an ISO text for Date to parse and a sixth of node-postgres' general parser: an
 * event page reads three per event. Anything else (years before 100, which Date.UTC would take for
 * 19xx, years beyond 9999, BC, infinity) goes to the general parser.
 */
export function parseUtcTimestamp(text: string): Date {
  const end = text.length - 3;
  if (
    end >= 19 &&
    text.endsWith('+00') &&
    text.charCodeAt(4) === 45 &&
    text.charCodeAt(10) === 32 &&
    (end === 19 || text.charCodeAt(19) === 46)
  ) {
    const year = digits(text, 0, 4);
    if (year >= 100) {
      // The fraction has up to six digits; an instant keeps milliseconds, cut as the general parser cuts them.
      const places = end - 20;
      const fraction = places > 0 ? digits(text, 20, end) : 0;
      const millis = places <= 3 ? fraction * 10 ** (3 - places) : Math.floor(fraction / 10 ** (places - 3));
      return new Date(
        Date.UTC(
          year,
          digits(text, 5, 7) - 1,
          digits(text, 8, 10),
          digits(text, 11, 13),
          digits(text, 14, 16),
          digits(text, 17, 19),
          millis,
        ),
      );
    }
  }
  return parseAnyTimestamp(text) as Date;
}

/** The number the decimal digits of text[from, to) write. */
function digits(text: string, from: number, to: number): number {
  let value = 0;
  for (let at = from; at < to; at += 1) value = value * 10 + text.charCodeAt(at) - 48;
  return value;
}

const TYPES: CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === TIMESTAMPTZ && format !== 'binary'
      ? parseUtcTimestamp
      : types.getTypeParser(oid, format)) as CustomTypesConfig['getTypeParser'],
};

/** Statements straight on the pool Prisma shares: one round trip each, or a transaction of a few. */
export class PoolSqlRunner implements SqlRunner {
  constructor(
    private readonly pool: Pool,
    /** As for Prisma's statements: only on a real server (see PrismaClientOptions). */
    private readonly prepared: boolean,
  ) {}

  query<T>(text: string, values: readonly unknown[], options: RunOptions = {}): Promise<T[]> {
    return run<T>(this.pool, this.prepared, text, values, options);
  }

  async transaction<T>(work: (sql: SqlRunner) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    // A connection that failed other than by PostgreSQL refusing a statement is in an unknown
    // state: the pool must not hand it out again.
    let reusable = true;
    // A connection lost while checked out is also reported as an 'error' event on the client, and
    // one nobody listens to ends the process. The statement in flight reports the loss to the work;
    // here the connection is only retired.
    const retire = () => {
      reusable = false;
    };
    client.on('error', retire);
    const control = (statement: string) =>
      client.query(statement).catch((error: unknown) => {
        if (!(error instanceof DatabaseError)) reusable = false;
        throw error;
      });
    const onClient: SqlRunner = {
      query: (text, values, options) => run(client, this.prepared, text, values, options),
      transaction: () => Promise.reject(new Error('a transaction of its own cannot start inside another')),
    };
    try {
      await control('BEGIN');
      let result: T;
      try {
        result = await work(onClient);
      } catch (error) {
        // The work's failure is what the caller must see; a rollback that fails too only retires the connection.
        await control('ROLLBACK').catch(() => undefined);
        throw error;
      }
      // After a failed statement PostgreSQL answers COMMIT by rolling back, without an error.
      const ended = await control('COMMIT');
      if (ended.command === 'ROLLBACK') throw new Error(ROLLED_BACK_AT_COMMIT);
      return result;
    } finally {
      client.off('error', retire);
      client.release(!reusable);
    }
  }
}

async function run<T>(
  on: Pool | PoolClient,
  prepared: boolean,
  text: string,
  values: readonly unknown[],
  options: RunOptions = {},
): Promise<T[]> {
  const prepare = prepared && (options.prepare ?? true);
  const config = {
    text,
    values: values.map(sqlParameter),
    types: TYPES,
    ...(prepare && { name: statementName(text) }),
  };
  const result = await on.query<QueryResultRow>(config);
  return result.rows as T[];
}
