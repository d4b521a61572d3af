// The connections every instance of the service opens to the PostgreSQL server, against the
// server's max_connections. Each process's pool and its job queue's pool connect to DATABASE_URL,
// which is the server itself or a pooler that has connections of its own to the server; the
// listening connections and the migrations' connections at start always go to the server
// (DATABASE_DIRECT_URL when set).
import { Client } from 'pg';
import { describeServer } from '../driver/describe-server';

export interface ConnectionPlan {
  /** SERVICE_REPLICAS: instances sharing the database. */
  readonly replicas: number;
  /** WEB_CONCURRENCY: serving processes per instance. */
  readonly processes: number;
  /** DATABASE_POOL_SIZE of each process. */
  readonly poolSize: number;
  /** Connections each process holds outside its pool, to LISTEN. */
  readonly listeners: number;
  /** The connections of each process's job queue (pg-boss's pool), to DATABASE_URL as the pool's. */
  readonly jobQueue: number;
  /** Behind a pooler: the server connections it opens for the service; undefined without one. */
  readonly poolerConnections: number | undefined;
}

/** The connections migrating holds while an instance starts: one, which holds the advisory lock and applies. */
export const MIGRATION_CONNECTIONS = 1;

export interface ConnectionDemand {
  readonly total: number;
  /** How the total is made, for the start-up line and the refusal. */
  readonly parts: readonly string[];
}

export function connectionDemand(plan: ConnectionPlan): ConnectionDemand {
  const processes = plan.replicas * plan.processes;
  const each = processes === 1 ? '1 process' : `${processes} processes`;
  const pools =
    plan.poolerConnections === undefined
      ? { count: processes * plan.poolSize, words: `${each} × ${plan.poolSize} pool connections` }
      : { count: plan.poolerConnections, words: `the pooler's ${plan.poolerConnections} server connections` };
  // Behind a pooler the job queues' connections are the pooler's too, counted with its own.
  const queues = plan.poolerConnections === undefined ? processes * plan.jobQueue : 0;
  const listening = processes * plan.listeners;
  const starting = plan.replicas * MIGRATION_CONNECTIONS;
  return {
    total: pools.count + queues + listening + starting,
    parts: [
      `${pools.words} (${pools.count})`,
      ...(plan.poolerConnections === undefined ? [`${each} × ${plan.jobQueue} job queue (${queues})`] : []),
      `${each} × ${plan.listeners} listening (${listening})`,
      `${MIGRATION_CONNECTIONS} per instance while it migrates at start (${starting})`,
    ],
  };
}

/** What the server lets connections other than superusers' open. */
export interface ServerConnectionLimits {
  readonly maxConnections: number;
  /** superuser_reserved_connections, plus reserved_connections on PostgreSQL 16 and later. */
  readonly reserved: number;
}

export function availableConnections(limits: ServerConnectionLimits): number {
  return limits.maxConnections - limits.reserved;
}

/** Reads the server's limits on one short connection of its own. */
export async function readServerConnectionLimits(connectionString: string): Promise<ServerConnectionLimits> {
  const client = new Client({ connectionString, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    const { rows } = await client.query<{ max: number; superusers: number; reserved: number }>(
      `SELECT current_setting('max_connections')::int AS max,
              current_setting('superuser_reserved_connections')::int AS superusers,
              coalesce(current_setting('reserved_connections', true), '0')::int AS reserved`,
    );
    const [row] = rows;
    return { maxConnections: row.max, reserved: row.superusers + row.reserved };
  } finally {
    await client.end();
  }
}

/**
 * Undefined when the plan fits the server; otherwise why not and what would fit, for an operator.
 * Other clients (psql, Prisma Studio, a backup) need room too: the plan should leave some.
 */
export function budgetProblem(
  plan: ConnectionPlan,
  limits: ServerConnectionLimits,
  server: string,
): string | undefined {
  const demand = connectionDemand(plan);
  const available = availableConnections(limits);
  if (demand.total <= available) return undefined;
  const processes = plan.replicas * plan.processes;
  const fixed = demand.total - (plan.poolerConnections ?? processes * plan.poolSize);
  const remedy =
    plan.poolerConnections === undefined
      ? fittingPool(available - fixed, processes) +
        ', fewer WEB_CONCURRENCY or SERVICE_REPLICAS, a larger max_connections, or a pooler in front ' +
        '(DATABASE_DIRECT_URL, docs/operations.md#behind-a-connection-pooler)'
      : `DATABASE_POOLER_CONNECTIONS of at most ${Math.max(0, available - fixed)} (with the pooler's own ` +
        'max_db_connections to match), fewer WEB_CONCURRENCY or SERVICE_REPLICAS, or a larger max_connections';
  return (
    `The service would open up to ${demand.total} connections to PostgreSQL at ${describeServer(server)}, ` +
    `which allows ${available} (max_connections ${limits.maxConnections}, ${limits.reserved} reserved): ` +
    `${demand.parts.join(' + ')}. ` +
    `Set ${remedy}. See docs/operations.md#the-connection-budget.`
  );
}

function fittingPool(roomForPools: number, processes: number): string {
  const size = Math.floor(roomForPools / processes);
  return size >= 1 ? `DATABASE_POOL_SIZE=${size} or less` : 'a smaller DATABASE_POOL_SIZE';
}
