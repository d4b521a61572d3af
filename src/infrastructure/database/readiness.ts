import { readdir } from 'node:fs/promises';
import type { PrismaClient } from '../persistence/prisma/generated/client';
import { migrationsDirectory } from './package-root';
import { databaseFailureOf } from './database-failures';

export interface Readiness {
  readonly ready: boolean;
  /** Why not, in words an operator can act on; never data. */
  readonly reason?: string;
  /** What asking the database failed with, when it did: an outage is reported as every request's. */
  readonly failure?: unknown;
}

/** What /readyz says when asking the database failed, by how it failed (database-failures.ts). */
const NOT_READY_BECAUSE = {
  unavailable: 'the database does not answer',
  statement_timeout: 'the database did not answer within DATABASE_TIMEOUT_MS',
  lock_timeout: 'the database did not answer within its lock_timeout',
  refused: 'the database cannot be read',
} as const;

/**
 * Ready means: the database answers, and every migration this build ships is applied (a process of a
 * newer build must not take traffic on an older schema). `trouble` says why the database cannot
 * answer when the process knows it (OpenDatabase.trouble), which then needs no asking.
 */
export function databaseReadiness(
  prisma: PrismaClient,
  trouble: () => string | null = () => null,
): () => Promise<Readiness> {
  return async () => {
    const known = trouble();
    if (known !== null) return { ready: false, reason: known };
    const shipped = (await readdir(migrationsDirectory(), { withFileTypes: true }))
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    try {
      const applied = await prisma.$queryRaw<Array<{ migration_name: string }>>`
        SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`;
      const done = new Set(applied.map((row) => row.migration_name));
      const pending = shipped.filter((name) => !done.has(name));
      return pending.length === 0
        ? { ready: true }
        : { ready: false, reason: `${pending.length} migration(s) not applied` };
    } catch (failure) {
      // Any failure to ask is the answer itself: the database cannot be reached, gave up on the read
      // (it waited behind a lock past the bound), or it answers but refuses the read (privileges, a
      // schema not the service's).
      return { ready: false, reason: NOT_READY_BECAUSE[databaseFailureOf(failure) ?? 'refused'], failure };
    }
  };
}
