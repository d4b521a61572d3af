// The Prisma client of the service. Prisma 7 has no query-engine binary: the client runs its
// queries through a driver adapter, here node-postgres (@prisma/adapter-pg), for both a real
// PostgreSQL server and the embedded PGlite one, which speaks the same wire protocol.
import { createHash } from 'node:crypto';
import { PrismaPg } from '@prisma/adapter-pg';
import type { ClientBase, PoolConfig } from 'pg';
import { Prisma, PrismaClient } from '../persistence/prisma/generated/client';

export { Prisma, PrismaClient };

/**
 * What a repository receives inside `prisma.$transaction(async (tx) => ...)`: the client minus
 * $connect, $transaction and the like. Repositories that accept it work both inside and outside
 * a transaction, since a PrismaClient is assignable to it.
 */
export type TransactionClient = Prisma.TransactionClient;

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
}

/**
 * How long a request waits for a new database connection before giving up: with the database gone
 * a request must fail within a bounded time (answered 503), not hang on a silent network.
 */
const CONNECT_TIMEOUT_MS = 5_000;

/**
 * Every session reads and writes instants in UTC. The driver sends a Date as a timestamp without
 * its offset, which PostgreSQL reads in the session's time zone: on a server whose zone is not UTC
 * every stored instant would be shifted by it (tests/integration/database/session-time-zone.test.ts).
 */
const UTC_SESSION = "SET TIME ZONE 'UTC'";

export function createPrismaClient(connectionString: string, options: PrismaClientOptions = {}): PrismaClient {
  const pool: PoolConfig = { connectionString, connectionTimeoutMillis: CONNECT_TIMEOUT_MS };
  if (options.maxConnections !== undefined) pool.max = options.maxConnections;
  pool.onConnect = async (client) => {
    await client.query(UTC_SESSION);
    await options.onConnect?.(client);
  };
  const adapter = new PrismaPg(pool, options.preparedStatements ? { statementNameGenerator: (query) => statementName(query.sql) } : undefined);
  return new PrismaClient({ adapter });
}

/**
 * Each connection prepares a statement once and reuses it: PostgreSQL then skips parsing and,
 * after a few runs, planning (0.8 ms of the 1.8 ms the event listing took; docs/performance.md).
 * The service's statements are a fixed set, so the per-connection cache stays small.
 */
function statementName(sql: string): string {
  return `tns_${createHash('sha1').update(sql).digest('base64url')}`;
}

/**
 * Prisma's codes for "the database cannot be used right now" (unreachable, timed out, connection
 * closed, pool exhausted): a passing condition the client should retry, not a fault of its request.
 */
const UNAVAILABLE_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);

export function isDatabaseUnavailable(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError
    ? UNAVAILABLE_CODES.has(error.code)
    : error instanceof Prisma.PrismaClientInitializationError;
}
