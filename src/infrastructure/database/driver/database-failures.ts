// What a failure of the database means for the request it failed: the one classification that
// every caller uses (the HTTP answers, the outage's log line and metrics, /readyz, the unit of
// work's decision to run again), for errors of Prisma's client and of node-postgres alike.
import { Prisma } from './generated/client';

/**
 * The database gave up waiting for the request's own statement (docs/decisions.md, "A statement
 * past its bound"): PostgreSQL cancelled it at `statement_timeout` (57014, DATABASE_TIMEOUT_MS),
 * or at a `lock_timeout` an operator set (55P03). The database serves the other requests meanwhile.
 */
export type DatabaseTimeout = 'statement_timeout' | 'lock_timeout';

/** `unavailable`: the database cannot serve anyone now, an outage that passes (docs/operations.md). */
export type DatabaseFailure = 'unavailable' | DatabaseTimeout;

/** SQLSTATEs of the database's timeouts, by reason. */
const TIMEOUT_CODES: ReadonlyMap<string, DatabaseTimeout> = new Map([
  ['57014', 'statement_timeout'],
  ['55P03', 'lock_timeout'],
]);

// SQLSTATE: 25006 read-only transaction (the server reached is a standby: a failover in progress,
// its proxy not yet leading to the new primary; the service itself never opens a read-only
// transaction), 53100 disk full (a write cannot grow a file: passing once space is freed), 53300
// too many connections, 57P01-57P03 shutting down or starting up; and of class 08 (connection
// exception) those of the connection itself: 08000 connection_exception, 08001 and 08004 (no
// connection made), 08003 and 08006 (none, or lost), 08007 (a commit's outcome unknown). Not 08P01.
const OUTAGE_CODES = new Set([
  '25006',
  '53100',
  '53300',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '08007',
]);

/**
 * 08P01 (protocol_violation) is what PostgreSQL answers a malformed message with (a defect of the
 * client's, as a statement bound to too few values), and what PgBouncer answers every refusal of its
 * own with. Of those, an outage is one that says it cannot serve now: it cannot log in to the server
 * (mid-failover), no server connection came in time, its clients' limit, a server connection lost,
 * or the server failed the SET that gives a connection the client's settings ("invalid server
 * parameter": a dying primary mid-failover; the service connects with fixed settings).
 * Its others ("no such database", "no such user", a failed login) are its configuration's: a fault
 * until an operator mends it, which the start reports (pooler-check.ts). Known by its words, the
 * only thing Prisma keeps of such an error besides the code.
 */
const POOLER_OUTAGE =
  /^(server login has been failing|pgbouncer cannot connect to server|query_wait_timeout|client_login_timeout|no more connections allowed|server conn crashed|invalid server parameter)/;

/**
 * Prisma's codes for "the database cannot be used right now" (unreachable, timed out, connection
 * closed, pool exhausted): a passing condition the client should retry, not a fault of its request.
 * A statement PostgreSQL cancelled comes as a database error with the server's code.
 */
const PRISMA_OUTAGE_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);
/** The same as the driver adapter's kinds of failure: all a raw statement's error (P2010) says of a lost connection. */
const ADAPTER_OUTAGE_KINDS = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
]);

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
const POOL_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/;

/** How the database failed the request, or null: it refused it (a constraint, a type) or it is no database failure. */
export function databaseFailureOf(error: unknown): DatabaseFailure | null {
  const code = sqlStateOf(error);
  if (typeof code === 'string') {
    const timeout = TIMEOUT_CODES.get(code);
    if (timeout) return timeout;
    if (OUTAGE_CODES.has(code) || (code === '08P01' && isPoolerOutage(error))) return 'unavailable';
  }
  if (error instanceof Prisma.PrismaClientKnownRequestError) {
    const kind = driverErrorKind(error);
    const lost = PRISMA_OUTAGE_CODES.has(error.code) || (typeof kind === 'string' && ADAPTER_OUTAGE_KINDS.has(kind));
    return lost ? 'unavailable' : null;
  }
  if (error instanceof Prisma.PrismaClientInitializationError || isConnectionFailure(error)) return 'unavailable';
  return null;
}

/** The database cannot serve now: the request is answered 503 and the outage is logged once. */
export function isDatabaseUnavailable(error: unknown): boolean {
  return databaseFailureOf(error) === 'unavailable';
}

/**
 * PostgreSQL received the statement and refused it (a constraint, a type, or cancelled it at its
 * bound): nothing of it was written. Unlike a connection lost on the way back, after which it may
 * have committed.
 */
export function isRefusedByDatabase(error: unknown): boolean {
  if (isDatabaseUnavailable(error)) return false;
  if (error instanceof Prisma.PrismaClientKnownRequestError) return true;
  const severity = fieldOf(error, 'severity');
  const code = fieldOf(error, 'code');
  return typeof severity === 'string' && typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
}

/**
 * The database could not grow a file for a write (53100 disk_full), through Prisma or straight from
 * node-postgres: writes that need room fail until there is some, reads still answer. An outage of
 * its own kind (database-availability.ts).
 */
export function isDiskFull(error: unknown): boolean {
  return sqlStateOf(error) === '53100';
}

/**
 * The server reached accepts no writes (25006 read_only_sql_transaction): a standby, for a moment
 * mid-failover or for as long as DATABASE_URL leads to one. Writes fail and reads may still answer
 * (a PostgreSQL server's pool, whose new connections LISTEN, fails them too), so, as a full disk, an
 * outage of its own kind (database-availability.ts).
 */
export function isReadOnly(error: unknown): boolean {
  return sqlStateOf(error) === '25006';
}

/** The SQLSTATE behind an error: node-postgres' `code`, or the one Prisma keeps in its driver adapter's error. */
function sqlStateOf(error: unknown): unknown {
  if (!(error instanceof Prisma.PrismaClientKnownRequestError)) return fieldOf(error, 'code');
  return fieldOf(fieldOf(error.meta?.driverAdapterError, 'cause'), 'originalCode');
}

/**
 * The kind of failure Prisma's driver adapter reported (DatabaseNotReachable, SocketTimeout, ...):
 * all a raw statement's error (P2010) says of a connection that failed, where a model query's has
 * a code of its own.
 */
function driverErrorKind(error: Prisma.PrismaClientKnownRequestError): unknown {
  return fieldOf(fieldOf(error.meta?.driverAdapterError, 'cause'), 'kind');
}

/** A pooler's refusal that says it cannot serve now (POOLER_OUTAGE), through node-postgres or Prisma. */
function isPoolerOutage(error: unknown): boolean {
  const message =
    error instanceof Prisma.PrismaClientKnownRequestError
      ? fieldOf(fieldOf(error.meta?.driverAdapterError, 'cause'), 'originalMessage')
      : fieldOf(error, 'message');
  return typeof message === 'string' && POOLER_OUTAGE.test(message);
}

function isConnectionFailure(error: unknown): boolean {
  // By shape, not `instanceof Error`: the socket's errors may come from another realm (a VM context).
  const code = fieldOf(error, 'code');
  if (typeof code === 'string' && SOCKET_CODES.has(code)) return true;
  const message = fieldOf(error, 'message');
  return typeof message === 'string' && POOL_MESSAGES.test(message);
}

function fieldOf(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null ? Reflect.get(value, name) : undefined;
}
