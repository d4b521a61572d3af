// What the start-up log says of a database: where it is, never its user or password. Apart from
// open-database.ts so that a cluster primary can say it without loading the Prisma client.

/** The start-up log's words for a database on a PostgreSQL server. */
export function describeExternalDatabase(connectionString: string): string {
  return `PostgreSQL at ${describeServer(connectionString)}`;
}

/** host:port/database of a connection URL, without user or password. */
export function describeServer(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    return `${url.host}${url.pathname}`;
  } catch {
    return 'the configured DATABASE_URL (not a parseable URL)';
  }
}
