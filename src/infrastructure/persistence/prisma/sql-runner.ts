import type { Db } from './db';
import { isInFailedTransaction } from './prisma-errors';

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

/**
 * What `transaction` throws, on either runner, when PostgreSQL rolled the work back at its COMMIT:
 * after a statement fails, COMMIT rolls back without an error, so work that caught the failure and
 * went on must not be told its writes were kept.
 */
export const ROLLED_BACK_AT_COMMIT = 'the transaction was rolled back: a statement in it failed and the work went on';

export function prismaSql(db: Db): SqlRunner {
  return {
    query: <T>(text: string, values: readonly unknown[]) => db.$queryRawUnsafe<T[]>(text, ...values.map(sqlParameter)),
    transaction: (work) =>
      '$transaction' in db
        ? db.$transaction(async (tx) => {
            const result = await work(prismaSql(tx));
            await refuseAborted(tx);
            return result;
          })
        : Promise.reject(new Error('a transaction of its own cannot start inside another')),
  };
}

/**
 * Prisma answers a commit without telling what PostgreSQL did with it; an aborted transaction
 * refuses every statement, so one more before the commit tells (a round trip on this path only:
 * the pool's runner reads the commit's own answer).
 */
async function refuseAborted(tx: Db): Promise<void> {
  const refusal = await tx.$queryRawUnsafe('SELECT 1').then(
    () => null,
    (error: unknown) => error,
  );
  if (refusal !== null) throw isInFailedTransaction(refusal) ? new Error(ROLLED_BACK_AT_COMMIT) : refusal;
}
