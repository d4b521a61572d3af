// What an instance checks of its database server once at start, before it migrates or opens a
// pool, each refusal a ConfigError that stops the start saying why and what would do:
// - the connection budget: an instance that would take PostgreSQL past max_connections under load
//   refuses to start rather than answer 503 when its pools fill up (docs/operations.md, "The
//   connection budget");
// - behind a pooler (DATABASE_DIRECT_URL set), the pooler: one that does not serve the service
//   stops the start rather than a process (or a cluster's workers, restarted one after the other)
//   answering every request with an error (docs/operations.md, "Behind a connection pooler").
import { ConfigError, type Config } from '../config';
import { JOB_QUEUE_CONNECTIONS, LISTENERS_PER_PROCESS } from '../settings';
import {
  budgetProblem,
  connectionDemand,
  readServerConnectionLimits,
  availableConnections,
  type ConnectionPlan,
} from '../infrastructure/database/health/connection-budget';
import { poolerRefusal } from '../infrastructure/database/health/pooler-check';

export function connectionPlan(config: Config): ConnectionPlan {
  return {
    replicas: config.serviceReplicas,
    processes: config.webConcurrency,
    poolSize: config.databasePoolSize,
    listeners: LISTENERS_PER_PROCESS,
    jobQueue: JOB_QUEUE_CONNECTIONS,
    poolerConnections: config.databasePoolerConnections,
  };
}

/** The start-up line that states the budget; throws ConfigError when it does not fit. */
export async function checkConnectionBudget(config: Config, serverUrl: string): Promise<string> {
  const plan = connectionPlan(config);
  const limits = await readServerConnectionLimits(serverUrl);
  const problem = budgetProblem(plan, limits, serverUrl);
  if (problem) throw new ConfigError(problem);
  return (
    `Database connections: up to ${connectionDemand(plan).total} of the ${availableConnections(limits)} ` +
    `PostgreSQL allows (SERVICE_REPLICAS=${config.serviceReplicas}).`
  );
}

/** Behind a pooler, throws ConfigError when it does not serve the service; nothing without one. */
export async function checkPooler(config: Config): Promise<void> {
  if (config.databaseDirectUrl === undefined || config.databaseUrl === undefined) return;
  const problem = await poolerRefusal(config.databaseUrl, config.databaseTimeoutMs);
  if (problem) throw new ConfigError(problem);
}
