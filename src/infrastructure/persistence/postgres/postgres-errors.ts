import { Prisma } from '../prisma/generated/client';

/** PostgreSQL refused a row because a unique index (`constraint`, when named) already holds its key. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, constraint: violated } = error as { code?: unknown; constraint?: unknown };
  return code === '23505' && (constraint === undefined || violated === constraint);
}

/**
 * PostgreSQL ended the statement to break a deadlock: it did not commit, and may run again. Only a
 * keyed write of this release against one of an earlier release locks the same two rows in the
 * opposite order (docs/decisions.md, "Idempotency-Key").
 */
export function isDeadlock(error: unknown): boolean {
  return typeof error === 'object' && error !== null && Reflect.get(error, 'code') === '40P01';
}

/**
 * The database could not grow a file for a write (53100 disk_full), through Prisma or straight from
 * node-postgres: writes that need room fail until there is some, reads still answer.
 */
export function isDiskFull(error: unknown): boolean {
  const code = error instanceof Prisma.PrismaClientKnownRequestError ? postgresCode(error) : fieldOf(error, 'code');
  return code === '53100';
}

/** PostgreSQL's SQLSTATE behind a Prisma error, which Prisma keeps in its driver adapter's error. */
export function postgresCode(error: Prisma.PrismaClientKnownRequestError): unknown {
  return fieldOf(fieldOf(error.meta?.driverAdapterError, 'cause'), 'originalCode');
}

/**
 * The kind of failure Prisma's driver adapter reported (DatabaseNotReachable, SocketTimeout, ...):
 * all a raw statement's error (P2010) says of a connection that failed, where a model query's has
 * a code of its own.
 */
export function driverErrorKind(error: Prisma.PrismaClientKnownRequestError): unknown {
  return fieldOf(fieldOf(error.meta?.driverAdapterError, 'cause'), 'kind');
}

function fieldOf(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null ? Reflect.get(value, name) : undefined;
}
