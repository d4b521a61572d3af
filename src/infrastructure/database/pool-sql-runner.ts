import type { Pool, QueryResultRow } from 'pg';
import type { SqlRunner } from '../persistence/prisma/sql-runner';
import { statementName } from './statement-names';

/** Statements straight on the pool Prisma shares: no transaction, one round trip each. */
export class PoolSqlRunner implements SqlRunner {
  constructor(
    private readonly pool: Pool,
    /** As for Prisma's statements: only on a real server (see PrismaClientOptions). */
    private readonly prepared: boolean,
  ) {}

  async query<T>(text: string, values: readonly unknown[]): Promise<T[]> {
    const config = { text, values: [...values], ...(this.prepared && { name: statementName(text) }) };
    const result = await this.pool.query<QueryResultRow>(config);
    return result.rows as T[];
  }
}
