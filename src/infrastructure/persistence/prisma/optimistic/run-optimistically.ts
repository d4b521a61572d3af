import type { Repositories } from '../../../../core/ports/repositories';
import { isDatabaseUnavailable } from '../../../database/prisma-client';
import type { PrismaClient } from '../generated/client';
import { TRAVELLER_SELECT, travellerFromRow, type TravellerRow } from '../repositories/prisma-traveller-repository';
import { NeedsLock, optimisticRepositories, type OptimisticState } from './optimistic-repositories';
import { TRAVELLERS } from './tables';
import { WriteSet } from './write-statement';

/** Why a run did not apply: the unit of work then runs again under the account's lock. */
export type Fallback = 'conflict' | 'needs-lock' | 'refused' | 'statement-failed' | 'no-traveller';

export type OptimisticOutcome<T> = { readonly applied: true; readonly result: T } | { readonly applied: false; readonly fallback: Fallback };

/**
 * One account's exclusive work without a transaction: read the traveller and its version, run the
 * work with its writes collected, then apply them in one guarded statement (write-statement.ts).
 * Two round trips for a typical write instead of BEGIN, lock, each write, COMMIT. Whatever the run
 * cannot decide alone (another writer came first, a read after a write, a refusal that may rest on
 * a state read in two moments) it leaves to the locked rerun, whose answer is the one that counts.
 */
export async function runOptimistically<T>(
  prisma: PrismaClient,
  accountId: string,
  work: (repositories: Repositories) => Promise<T>,
  plain: Repositories,
): Promise<OptimisticOutcome<T>> {
  const [row] = await prisma.$queryRaw<Array<TravellerRow & { version: string }>>`
    SELECT ${TRAVELLER_SELECT}, version::text AS version FROM travellers WHERE account_id = ${accountId}`;
  if (!row) return { applied: false, fallback: 'no-traveller' };
  const state: OptimisticState = { accountId, traveller: travellerFromRow(row), travellerSaved: null, writes: new WriteSet(), reads: 0 };
  let result: T;
  try {
    result = await work(optimisticRepositories(plain, state));
  } catch (error) {
    if (isDatabaseUnavailable(error)) throw error;
    return { applied: false, fallback: error instanceof NeedsLock ? 'needs-lock' : 'refused' };
  }
  if (state.writes.isEmpty && !state.travellerSaved && state.reads === 0) return { applied: true, result };
  const { sql, values } = state.writes.statement(accountId, row.version, state.travellerSaved, TRAVELLERS);
  let applied: Array<{ applied: number }>;
  try {
    applied = await prisma.$queryRawUnsafe<Array<{ applied: number }>>(sql, ...values.map(asParameter));
  } catch (error) {
    // A refused row (a key taken meanwhile, say): the locked rerun meets it and reports it as usual.
    if (isDatabaseUnavailable(error)) throw error;
    return { applied: false, fallback: 'statement-failed' };
  }
  return applied[0]?.applied === 1 ? { applied: true, result } : { applied: false, fallback: 'conflict' };
}

/**
 * Instants as ISO 8601 text, cast to timestamptz in the statement: the driver would send a Date
 * without its offset, read in the session's time zone, which need not be UTC.
 */
function asParameter(value: unknown): unknown {
  return value instanceof Date ? value.toISOString() : value;
}
