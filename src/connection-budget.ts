// Checked once per instance at start, before it migrates or opens a pool: an instance that would
// take PostgreSQL past max_connections under load refuses to start, saying why and what would fit,
// rather than answer 503 when its pools fill up (docs/operations.md, "The connection budget").
import { ConfigError, type Config } from './config';
import { LISTENERS_PER_PROCESS } from './settings';
import {
  budgetProblem,
  connectionDemand,
  readServerConnectionLimits,
  availableConnections,
  type ConnectionPlan,
} from './infrastructure/database/connection-budget';

export function connectionPlan(config: Config): ConnectionPlan {
  return {
    replicas: config.serviceReplicas,
    processes: config.webConcurrency,
    poolSize: config.databasePoolSize,
    listeners: LISTENERS_PER_PROCESS,
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
