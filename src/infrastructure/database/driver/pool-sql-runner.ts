import { types, type CustomTypesConfig, type Pool, type QueryResultRow } from 'pg';
import { type RunOptions, sqlParameter, type SqlRunner } from './sql-runner';
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

/** Statements straight on the pool Prisma shares, each on its own: one round trip each. */
export class PoolSqlRunner implements SqlRunner {
  constructor(
    private readonly pool: Pool,
    /** As for Prisma's statements: only on a real server (see PrismaClientOptions). */
    private readonly prepared: boolean,
  ) {}

  async query<T>(text: string, values: readonly unknown[], options: RunOptions = {}): Promise<T[]> {
    const prepare = this.prepared && (options.prepare ?? true);
    const result = await this.pool.query<QueryResultRow>({
      text,
      values: values.map(sqlParameter),
      types: TYPES,
      ...(prepare && { name: statementName(text) }),
    });
    return result.rows as T[];
  }
}
