import type { Db } from './db';

/**
 * Runs one raw statement (`$1`-style parameters; a Prisma.Sql gives its `text` and `values`).
 * Inside a Prisma transaction it goes through Prisma's client; outside, the service runs its
 * busiest statements straight on the connection pool Prisma shares, which costs about half the CPU
 * (docs/performance.md). Both answer rows as node-postgres parses them (instants as Date).
 */
export interface SqlRunner {
  query<T>(text: string, values: readonly unknown[]): Promise<T[]>;
}

export function prismaSql(db: Db): SqlRunner {
  return { query: <T>(text: string, values: readonly unknown[]) => db.$queryRawUnsafe<T[]>(text, ...values) };
}
