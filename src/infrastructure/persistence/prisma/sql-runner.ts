import type { Db } from './db';

export interface RunOptions {
  /**
   * Prepare the statement on each connection (where the runner prepares at all). Off for texts
   * that vary with their input, each of which would stay prepared on every connection.
   */
  readonly prepare?: boolean;
}

/**
 * Runs one raw statement (`$1`-style parameters; a Prisma.Sql gives its `text` and `values`).
 * Inside a Prisma transaction it goes through Prisma's client; outside, the service runs its
 * busiest statements straight on the connection pool Prisma shares, which costs about half the CPU
 * (docs/performance.md). Both answer rows as node-postgres parses them (instants as Date).
 */
export interface SqlRunner {
  query<T>(text: string, values: readonly unknown[], options?: RunOptions): Promise<T[]>;
  /** Runs `work` in one transaction of its own: committed when it returns, rolled back when it throws. */
  transaction<T>(work: (sql: SqlRunner) => Promise<T>): Promise<T>;
}

/**
 * Instants as ISO 8601 text in UTC, which PostgreSQL reads exactly wherever a timestamptz is
 * expected. Neither driver's own way is exact everywhere: Prisma's adapter sends a Date without its
 * offset (read in the session's zone), node-postgres with the process's offset rounded to whole
 * minutes (a zone's historical offsets have seconds: 1900 in Asia/Kolkata arrived 10 s late).
 */
export function sqlParameter(value: unknown): unknown {
  return value instanceof Date ? value.toISOString() : value;
}

export function prismaSql(db: Db): SqlRunner {
  return {
    query: <T>(text: string, values: readonly unknown[]) => db.$queryRawUnsafe<T[]>(text, ...values.map(sqlParameter)),
    transaction: (work) =>
      '$transaction' in db
        ? db.$transaction((tx) => work(prismaSql(tx)))
        : Promise.reject(new Error('a transaction of its own cannot start inside another')),
  };
}
