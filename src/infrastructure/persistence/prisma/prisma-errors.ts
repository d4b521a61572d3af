import { Prisma } from './generated/client';

/** PostgreSQL refused a row because a unique index already holds its key (Prisma code P2002). */
export function isUniqueViolation(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002';
}

/**
 * A statement refused because an earlier one of its transaction failed (SQLSTATE 25P02): Prisma
 * reports it as a failed raw query (P2010) and keeps PostgreSQL's code in its driver adapter's error.
 */
export function isInFailedTransaction(error: unknown): boolean {
  if (!(error instanceof Prisma.PrismaClientKnownRequestError) || error.code !== 'P2010') return false;
  return postgresCode(error) === '25P02';
}

/** PostgreSQL's SQLSTATE behind a Prisma error, which Prisma keeps in its driver adapter's error. */
export function postgresCode(error: Prisma.PrismaClientKnownRequestError): unknown {
  return fieldOf(fieldOf(error.meta?.driverAdapterError, 'cause'), 'originalCode');
}

function fieldOf(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null ? Reflect.get(value, name) : undefined;
}
