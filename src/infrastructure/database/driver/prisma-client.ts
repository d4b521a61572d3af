// The Prisma client of the service. Prisma 7 has no query-engine binary: the client runs its
// queries through a driver adapter, here node-postgres (@prisma/adapter-pg), for both a real
// PostgreSQL server and the embedded PGlite one, which speaks the same wire protocol.
import { PrismaPg } from '@prisma/adapter-pg';
import { type ClientBase, Pool, type PoolConfig } from 'pg';
import { Prisma, PrismaClient } from './generated/client';
import type { SqlRunner } from './sql-runner';
import {
  CANCEL_ANSWER_MS,
  closeWhenStalled,
  DEFAULT_DATABASE_TIMEOUT_MS,
  KEEPALIVE_DELAY_MS,
  statementTimeout,
} from './database-timeouts';
import { PoolSqlRunner } from './pool-sql-runner';
import { statementName } from './statement-names';
import { databaseTarget, type DatabaseTelemetry, watchConnectionWaits, watchStatements } from './statement-telemetry';

export { Prisma, PrismaClient };

export interface PrismaClientOptions {
  /**
   * Size of the connection pool. Default: node-postgres' default (10). The embedded server
   * needs 1 (EMBEDDED_POOL_SIZE in embedded-postgres.ts explains why).
   */
  maxConnections?: number;
  /**
   * Runs on each new connection of the pool before its first use (node-postgres' onConnect): the
   * verified-key cache makes every connection LISTEN for key changes (key-change-listener.ts).
   */
  onConnect?: (client: ClientBase) => Promise<void>;
  /**
   * Names statements so each connection prepares them once (see statementName). Only for a real
   * server: the embedded one serves every connection from one session, where the names collide.
   */
  preparedStatements?: boolean;
  /**
   * DATABASE_TIMEOUT_MS: the longest wait for a connection (new, or free in the pool) and for a
   * statement, which PostgreSQL cancels at this bound; a statement still unanswered CANCEL_ANSWER_MS later
   * closes its connection (database-timeouts.ts). Default DEFAULT_DATABASE_TIMEOUT_MS.
   */
  timeoutMs?: number;
  /** Hears every answer of the database on the pool's connections (DatabaseAvailability.answered). */
  onAnswer?: () => void;
  /** Spans and times of every statement and of each wait for a connection (statement-telemetry.ts). */
  telemetry?: DatabaseTelemetry;
  /**
   * Hears what the database tells the pool's connections besides answers (RAISE NOTICE), once the
   * connection is back in the pool: after the statement or transaction that raised it has ended,
   * so what it tells of (messages recorded) is committed by then, for the relay to find.
   */
  onNotice?: (notice: DatabaseNotice) => void;
}

/** A notice of the database, as node-postgres hands it on (its fields, as PostgreSQL sent them). */
export interface DatabaseNotice {
  readonly message?: string;
  readonly detail?: string;
}

/**
 * Every session reads and writes instants in UTC. The driver sends a Date as a timestamp without
 * its offset, which PostgreSQL reads in the session's time zone: on a server whose zone is not UTC
 * every stored instant would be shifted by it (tests/integration/database/session-time-zone.server.test.ts).
 */
const UTC_SESSION = "SET TIME ZONE 'UTC'";

/** Prisma's client and the pool it runs on, for the statements the service sends straight. */
/** How a pool's connections are used right now (node-postgres' own counts), for the metrics. */
export type PoolUsage = Readonly<Pick<Pool, 'totalCount' | 'idleCount' | 'waitingCount'>> & {
  readonly options: { readonly max: number };
};

export interface DatabaseClients {
  readonly prisma: PrismaClient;
  readonly sql: SqlRunner;
  readonly pool: PoolUsage;
}

export function createDatabaseClients(connectionString: string, options: PrismaClientOptions = {}): DatabaseClients {
  const timeoutMs = options.timeoutMs ?? DEFAULT_DATABASE_TIMEOUT_MS;
  const config: PoolConfig = {
    connectionString,
    connectionTimeoutMillis: timeoutMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
  };
  if (options.maxConnections !== undefined) config.max = options.maxConnections;
  const session = `${UTC_SESSION}; ${statementTimeout(timeoutMs)}`;
  const telemetry = options.telemetry ?? {};
  const target = databaseTarget(connectionString);
  // eslint-disable-next-line @typescript-eslint/no-misused-promises -- pg-pool awaits it; @types/pg says void
  config.onConnect = async (client) => {
    watchStatements(client, telemetry, target);
    // First: the session's own statements must not hang either.
    closeWhenStalled(client, timeoutMs + CANCEL_ANSWER_MS, options.onAnswer);
    await client.query(session);
    if (options.onNotice) {
      const notices: DatabaseNotice[] = [];
      heard.set(client, notices);
      client.on('notice', (notice) => notices.push(notice));
    }
    await options.onConnect?.(client);
  };
  // Each connection's notices since it was taken from the pool, passed on as it goes back.
  const heard = new WeakMap<object, DatabaseNotice[]>();
  const pool = new Pool(config);
  const onNotice = options.onNotice;
  if (onNotice)
    pool.on('release', (_error, client) => {
      // Every statement's release passes here: most heard nothing, and cost no array.
      const notices = heard.get(client);
      if (!notices?.length) return;
      for (const notice of notices.splice(0)) onNotice(notice);
    });
  watchConnectionWaits(pool, telemetry);
  // An idle connection that fails is dropped by the pool and replaced on demand; the next query
  // reports an outage if there is one. Without a listener the event would end the process.
  pool.on('error', () => undefined);
  const prepared = options.preparedStatements ?? false;
  const adapter = new PrismaPg(pool, {
    disposeExternalPool: true,
    ...(prepared && { statementNameGenerator: (query: { sql: string }) => statementName(query.sql) }),
  });
  return { prisma: new PrismaClient({ adapter }), sql: new PoolSqlRunner(pool, prepared), pool };
}

export function createPrismaClient(connectionString: string, options: PrismaClientOptions = {}): PrismaClient {
  return createDatabaseClients(connectionString, options).prisma;
}
