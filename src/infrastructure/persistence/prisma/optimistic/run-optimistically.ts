import type { Repositories } from '../../../../core/ports/repositories';
import { isDatabaseUnavailable, isRefusedByDatabase } from '../../../database/prisma-client';
import { TRAVELLER_SELECT, travellerFromRow, travellerRow, type TravellerRow } from '../repositories/prisma-traveller-repository';
import type { SqlRunner } from '../sql-runner';
import type { KnownTraveller, KnownTravellers } from './known-travellers';
import { NeedsLock, optimisticRepositories, type OptimisticState } from './optimistic-repositories';
import { WriteSet } from './write-statement';

/** Why a run did not apply: the unit of work then runs again under the account's lock. */
export type Fallback = 'conflict' | 'needs-lock' | 'refused' | 'statement-failed' | 'no-traveller';

export type OptimisticOutcome<T> =
  | { readonly applied: true; readonly result: T }
  | { readonly applied: false; readonly fallback: Fallback; readonly cause?: unknown };

/**
 * Statements of up to this many writes are prepared on each connection (an anchor: 2, a clock
 * shift: none). Longer ones vary with their input (a travel's items) and are sent unprepared.
 */
const PREPARED_WRITES = 4;

const READ_TRAVELLER = `SELECT ${TRAVELLER_SELECT}, version::text AS version FROM travellers WHERE account_id = $1`;

/** One account's exclusive work, and what an optimistic run of it uses. */
export interface OptimisticRun<T> {
  readonly sql: SqlRunner;
  readonly accountId: string;
  readonly work: (repositories: Repositories) => Promise<T>;
  /** The repositories outside any transaction, for the work's reads. */
  readonly plain: Repositories;
  readonly known: KnownTravellers;
}

/**
 * One account's exclusive work without a transaction: start from the traveller and its version
 * (as this process last knew it, or read), run the work with its writes collected, then apply them
 * in one guarded statement (write-statement.ts). One or two round trips for a typical write instead
 * of BEGIN, lock, each write, COMMIT. A traveller known from before that changed meanwhile costs a
 * fresh read and a second try. Whatever the run cannot decide alone (another writer came first, a
 * read after a write, a refusal that may rest on a state read in two moments) it leaves to the
 * locked rerun, whose answer is the one that counts.
 */
export async function runOptimistically<T>(run: OptimisticRun<T>): Promise<OptimisticOutcome<T>> {
  const { sql, accountId, known } = run;
  const remembered = known.get(accountId);
  if (remembered) {
    const outcome = await attempt(run, remembered, true);
    if (outcome.applied || outcome.fallback !== 'conflict') return outcome;
    known.forget(accountId);
  }
  const [read] = await sql.query<TravellerRow & { version: string }>(READ_TRAVELLER, [accountId]);
  if (!read) return { applied: false, fallback: 'no-traveller' };
  const { version, ...row } = read;
  return attempt(run, { row, version }, false);
}

async function attempt<T>({ sql, accountId, work, plain, known }: OptimisticRun<T>, start: KnownTraveller, remembered: boolean): Promise<OptimisticOutcome<T>> {
  const state: OptimisticState = { accountId, traveller: travellerFromRow(start.row), travellerSaved: null, writes: new WriteSet(), reads: 0 };
  let result: T;
  try {
    result = await work(optimisticRepositories(plain, state));
  } catch (error) {
    if (isDatabaseUnavailable(error)) throw error;
    return { applied: false, fallback: error instanceof NeedsLock ? 'needs-lock' : 'refused' };
  }
  // A traveller read just now, and nothing else read or written: the answer rests on one state.
  if (!remembered && state.writes.isEmpty && !state.travellerSaved && state.reads === 0) return { applied: true, result };
  const statement = state.writes.statement(accountId, start.version, state.travellerSaved);
  let applied: Array<{ version: string }>;
  try {
    applied = await sql.query<{ version: string }>(statement.sql, statement.values, { prepare: state.writes.size <= PREPARED_WRITES });
  } catch (error) {
    // Refused by PostgreSQL (a key taken meanwhile, say): nothing was written, and the locked rerun
    // meets it and reports it as usual. Anything else (a connection lost on the way back) leaves it
    // unknown whether the statement committed: a rerun could apply the work twice.
    if (!isRefusedByDatabase(error)) throw error;
    return { applied: false, fallback: 'statement-failed', cause: error };
  }
  const [moved] = applied;
  if (!moved) return { applied: false, fallback: 'conflict' };
  known.remember(accountId, { row: travellerRow(state.traveller), version: moved.version });
  return { applied: true, result };
}
