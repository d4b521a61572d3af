import type { Repositories } from '../../../../core/ports/repositories';
import { isDatabaseUnavailable, isRefusedByDatabase } from '../../../database/prisma-client';
import {
  TRAVELLER_SELECT,
  travellerFromRow,
  travellerRow,
  type TravellerRow,
} from '../repositories/prisma-traveller-repository';
import type { SqlRunner } from '../sql-runner';
import type { KnownTraveller, KnownTravellers } from './known-travellers';
import type { DeferredOutcome, DeferredRequest } from './deferred-request';
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
  const read = await readTraveller(sql, accountId);
  if (!read) return { applied: false, fallback: 'no-traveller' };
  return attempt(run, read, false);
}

/**
 * A keyed request's one unit of work (deferred-request.ts): run as `attempt` runs it, but its
 * writes are left pending, to be applied with the request's answer. What `attempt` would hand to
 * the locked rerun gives the whole request to its transaction instead.
 */
export async function deferOptimistically<T>(
  request: DeferredRequest,
  { sql, accountId, work, plain, known }: OptimisticRun<T>,
): Promise<T> {
  request.beginUnit();
  const remembered = known.get(accountId);
  const start = remembered ?? (await readTraveller(sql, accountId));
  if (!start) return request.abandon('the account has no traveller');
  const state = startState(accountId, start);
  const ran = await runWork(work, plain, state);
  if (!ran.done)
    return request.abandon(
      ran.fallback === 'needs-lock' ? 'a unit that needs the lock' : 'a refusal, to be decided under the lock',
    );
  const { result } = ran;
  if (!remembered && restsOnOneRead(state)) return result;
  request.pending = {
    apply: async (keep) => {
      const statement = state.writes.statement(accountId, start.version, state.travellerSaved);
      const outcome = await sql
        .transaction(async (tx) => {
          const [moved] = await tx.query<{ version: string }>(statement.sql, statement.values, {
            prepare: state.writes.size <= PREPARED_WRITES,
          });
          if (!moved) throw new RolledBack('conflict');
          if (!(await keep(tx))) throw new RolledBack('claim-lost');
          return moved.version;
        })
        .catch((error: unknown) => {
          if (error instanceof RolledBack) return error;
          throw error;
        });
      if (outcome instanceof RolledBack) {
        if (outcome.outcome === 'conflict') known.forget(accountId);
        return outcome.outcome;
      }
      known.remember(accountId, { row: travellerRow(state.traveller), version: outcome });
      return 'applied';
    },
  };
  return result;
}

/** Rolls a deferred request's transaction back, saying why. */
class RolledBack extends Error {
  constructor(readonly outcome: Exclude<DeferredOutcome, 'applied'>) {
    super(`rolled back: ${outcome}`);
  }
}

async function readTraveller(sql: SqlRunner, accountId: string): Promise<KnownTraveller | null> {
  const [read] = await sql.query<TravellerRow & { version: string }>(READ_TRAVELLER, [accountId]);
  if (!read) return null;
  const { version, ...row } = read;
  return { row, version };
}

function startState(accountId: string, start: KnownTraveller): OptimisticState {
  return { accountId, traveller: travellerFromRow(start.row), travellerSaved: null, writes: new WriteSet(), reads: 0 };
}

/** The work on the optimistic repositories: its result, or why it must run under the lock. */
async function runWork<T>(
  work: OptimisticRun<T>['work'],
  plain: Repositories,
  state: OptimisticState,
): Promise<
  { readonly done: true; readonly result: T } | { readonly done: false; readonly fallback: 'needs-lock' | 'refused' }
> {
  try {
    return { done: true, result: await work(optimisticRepositories(plain, state)) };
  } catch (error) {
    if (isDatabaseUnavailable(error)) throw error;
    return { done: false, fallback: error instanceof NeedsLock ? 'needs-lock' : 'refused' };
  }
}

/** A traveller read just now, and nothing else read or written: the answer rests on one state. */
function restsOnOneRead(state: OptimisticState): boolean {
  return state.writes.isEmpty && !state.travellerSaved && state.reads === 0;
}

async function attempt<T>(
  { sql, accountId, work, plain, known }: OptimisticRun<T>,
  start: KnownTraveller,
  remembered: boolean,
): Promise<OptimisticOutcome<T>> {
  const state = startState(accountId, start);
  const ran = await runWork(work, plain, state);
  if (!ran.done) return { applied: false, fallback: ran.fallback };
  const { result } = ran;
  if (!remembered && restsOnOneRead(state)) return { applied: true, result };
  const statement = state.writes.statement(accountId, start.version, state.travellerSaved);
  let applied: Array<{ version: string }>;
  try {
    applied = await sql.query<{ version: string }>(statement.sql, statement.values, {
      prepare: state.writes.size <= PREPARED_WRITES,
    });
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
