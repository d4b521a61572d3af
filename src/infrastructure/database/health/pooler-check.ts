// Behind a connection pooler, the service's pool reaches the database through the pooler's own
// configuration (its databases and users), which the migrations, run on the server itself
// (DATABASE_DIRECT_URL), never try. A pooler that does not know the database answers every request's
// first statement with a refusal (PgBouncer's 08P01 "no such database"): asked once at start, so
// that the start fails saying so rather than the process serving nothing but errors.
import { Client } from 'pg';
import { describeServer } from '../driver/describe-server';
import { databaseFailureOf } from '../driver/database-failures';

/**
 * Why the pooler at `url` (DATABASE_URL) does not serve the service, in words an operator can act
 * on, or null when it answers a statement. `timeoutMs` bounds the connection and the statement.
 */
export async function poolerRefusal(url: string, timeoutMs: number): Promise<string | null> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs });
  // A connection lost is also emitted as an event, which unheard would end the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (error) {
    const words = error instanceof Error ? error.message : String(error);
    const pooler = `The connection pooler at ${describeServer(url)} (DATABASE_URL)`;
    // Passing (it cannot reach the server now) or not: the start stops either way, saying which.
    return databaseFailureOf(error) === null
      ? `${pooler} refuses the service: ${words}. Its configuration must name DATABASE_URL's database ` +
          "(PgBouncer's [databases]) and accept its user and password (its auth_file)."
      : `${pooler} does not serve the database now: ${words}.`;
  } finally {
    await client.end().catch(() => undefined);
  }
}
