// The Prisma client of the service. Prisma 7 has no query-engine binary: the client runs its
// queries through a driver adapter, here node-postgres (@prisma/adapter-pg), for both a real
// PostgreSQL server and the embedded PGlite one, which speaks the same wire protocol.
import { PrismaPg } from '@prisma/adapter-pg';
import { type ClientBase, Pool, type PoolConfig } from 'pg';
import { Prisma, PrismaClient } from '../persistence/prisma/generated/client';
import { driverErrorKind, postgresCode } from '../persistence/postgres/postgres-errors';
import type { SqlRunner } from '../persistence/postgres/sql-runner';
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
    await options.onConnect?.(client);
  };
  const pool = new Pool(config);
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

/**
 * Prisma's codes for "the database cannot be used right now" (unreachable, timed out, connection
 * closed, pool exhausted): a passing condition the client should retry, not a fault of its request.
 * A statement PostgreSQL cancelled at the bound comes as a database error with the server's code.
 */
const UNAVAILABLE_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);
/** The same as the driver adapter's kinds of failure: all a raw statement's error (P2010) says of a lost connection. */
const UNAVAILABLE_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);

export function isDatabaseUnavailable(error: unknown): boolean {
  if (error instanceof Prisma.PrismaClientKnownRequestError) {
    const code = postgresCode(error);
    const kind = driverErrorKind(error);
    return (
      UNAVAILABLE_CODES.has(error.code) ||
      (typeof code === 'string' && isOutageCode(code)) ||
      (typeof kind === 'string' && UNAVAILABLE_KINDS.has(kind))
    );
  }
  return error instanceof Prisma.PrismaClientInitializationError || isConnectionFailure(error);
}

/**
 * PostgreSQL received the statement and refused it (a constraint, a type): nothing of it was
 * written. Unlike a connection lost on the way back, after which it may have committed.
 */
export function isRefusedByDatabase(error: unknown): boolean {
  if (isDatabaseUnavailable(error)) return false;
  if (error instanceof Prisma.PrismaClientKnownRequestError) return true;
  if (typeof error !== 'object' || error === null) return false;
  const { severity, code } = error as { severity?: unknown; code?: unknown };
  return typeof severity === 'string' && typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
}

/** The same for statements sent straight on the pool: node-postgres' and the socket's own errors. */
const SOCKET_CODES = new Set([
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);
// SQLSTATE: 25006 read-only transaction (the server reached is a standby: a failover in progress,
// its proxy not yet leading to the new primary; the service itself never opens a read-only
// transaction), 53100 disk full (a write cannot grow a file: passing once space is freed), 53300
// too many connections, 57014 cancelled (statement_timeout: the bound), 57P01-57P03 shutting down
// or starting up.
const SERVER_CODES = new Set(['25006', '53100', '53300', '57014', '57P01', '57P02', '57P03']);

/**
 * A SQLSTATE that says the database cannot serve now: SERVER_CODES, or class 08 (connection
 * exception), which is also what a pooler in between answers when it cannot reach the server
 * (PgBouncer's 08P01 "server login has been failing", mid-failover).
 */
function isOutageCode(code: string): boolean {
  return SERVER_CODES.has(code) || code.startsWith('08');
}
const POOL_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/;

function isConnectionFailure(error: unknown): boolean {
  // By shape, not `instanceof Error`: the socket's errors may come from another realm (a VM context).
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (SOCKET_CODES.has(code) || isOutageCode(code))) return true;
  return typeof message === 'string' && POOL_MESSAGES.test(message);
}
