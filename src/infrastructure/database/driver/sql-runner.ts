export interface RunOptions {
  /**
   * Prepare the statement on each connection (where the runner prepares at all). Off for texts
   * that vary with their input, each of which would stay prepared on every connection.
   */
  readonly prepare?: boolean;
}

/**
 * Runs one statement (`$1`-style parameters) on its own: PostgreSQL commits it whole or not at all.
 * The service's one way to send SQL (pool-sql-runner.ts runs it on the pool Prisma's client
 * shares). Rows come as node-postgres parses them: instants as Date, bigint as text.
 */
export interface SqlRunner {
  query<T>(text: string, values: readonly unknown[], options?: RunOptions): Promise<T[]>;
}

/**
 * Instants as ISO 8601 text in UTC, which PostgreSQL reads exactly wherever a timestamptz is
 * expected, alone or in an array. node-postgres' own way sends the process's offset rounded to whole
 * minutes (a zone's historical offsets have seconds: 1900 in Asia/Kolkata arrived 10 s late).
 */
export function sqlParameter(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  // A write's columns go as arrays, most of them without an instant: those are sent as they are.
  return Array.isArray(value) && value.some(needsWriting) ? value.map(sqlParameter) : value;
}

function needsWriting(value: unknown): boolean {
  return value instanceof Date || Array.isArray(value);
}
