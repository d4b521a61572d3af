import { types, type CustomTypesConfig, type Pool, type QueryResultRow } from 'pg';
import { type RunOptions, sqlParameter, type SqlRunner } from '../persistence/prisma/sql-runner';
import { statementName } from './statement-names';

const TIMESTAMPTZ = 1184;
const parseAnyTimestamp = types.getTypeParser(TIMESTAMPTZ, 'text');

/**
 * A UTC session (every connection is one: prisma-client.ts) prints an instant as
 * `YYYY-MM-DD hh:mm:ss[.ffffff]+00`, which the engine's own ISO 8601 parser reads in about half the
 * time of node-postgres' general one: an event page parses three per event. Anything else (years
 * beyond 9999, BC, infinity) goes to the general parser.
 */
export function parseUtcTimestamp(text: string): Date {
  if (text.length >= 22 && text.endsWith('+00') && text.charCodeAt(4) === 45 && text.charCodeAt(10) === 32) {
    return new Date(`${text.slice(0, 10)}T${text.slice(11, -3)}Z`);
  }
  return parseAnyTimestamp(text) as Date;
}

const TYPES: CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === TIMESTAMPTZ && format !== 'binary' ? parseUtcTimestamp : types.getTypeParser(oid, format)) as CustomTypesConfig['getTypeParser'],
};

/** Statements straight on the pool Prisma shares: no transaction, one round trip each. */
export class PoolSqlRunner implements SqlRunner {
  constructor(
    private readonly pool: Pool,
    /** As for Prisma's statements: only on a real server (see PrismaClientOptions). */
    private readonly prepared: boolean,
  ) {}

  async query<T>(text: string, values: readonly unknown[], options: RunOptions = {}): Promise<T[]> {
    const prepare = this.prepared && (options.prepare ?? true);
    const config = { text, values: values.map(sqlParameter), types: TYPES, ...(prepare && { name: statementName(text) }) };
    const result = await this.pool.query<QueryResultRow>(config);
    return result.rows as T[];
  }
}
