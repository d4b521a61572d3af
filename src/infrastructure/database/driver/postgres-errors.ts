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
