import { readdir } from 'node:fs/promises';
import type { PrismaClient } from '../driver/generated/client';
import { migrationsDirectory } from '../migrations/package-root';
import { databaseFailureOf, isReadOnly } from '../driver/database-failures';

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

/** What /readyz says of a server that accepts no writes (`pg_is_in_recovery()`, or a refusal with 25006). */
const STANDBY = 'the database is a standby (in recovery) and accepts no writes: DATABASE_URL must lead to the primary';

/**
 * Ready means: the database answers, it is a primary (a standby refuses every write, and a balancer
 * should send the requests elsewhere), and every migration this build ships is applied (a process of a
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
      const [server] = await prisma.$queryRaw<Array<{ standby: boolean }>>`SELECT pg_is_in_recovery() AS standby`;
      if (server?.standby) return { ready: false, reason: STANDBY };
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
      // Without a pooler a standby refuses even this read: each new connection of the pool LISTENs first (25006).
      const reason = isReadOnly(failure) ? STANDBY : NOT_READY_BECAUSE[databaseFailureOf(failure) ?? 'refused'];
      return { ready: false, reason, failure };
    }
  };
}
