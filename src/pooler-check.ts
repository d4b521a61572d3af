// Checked once per instance at start, behind a pooler (DATABASE_DIRECT_URL set), before the
// database is opened: a pooler that does not serve the service stops the start, saying why, rather
// than a process (or a cluster's workers, restarted one after the other) answering every request
// with an error (docs/operations.md, "Behind a connection pooler").
import { ConfigError, type Config } from './config';
import { poolerRefusal } from './infrastructure/database/pooler-check';

export async function checkPooler(config: Config): Promise<void> {
  if (config.databaseDirectUrl === undefined || config.databaseUrl === undefined) return;
  const problem = await poolerRefusal(config.databaseUrl, config.databaseTimeoutMs);
  if (problem) throw new ConfigError(problem);
}
