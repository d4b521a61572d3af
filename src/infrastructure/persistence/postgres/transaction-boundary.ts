import { AsyncLocalStorage } from 'node:async_hooks';
import { trace } from '@opentelemetry/api';
import type { Counters } from '../../../core/ports/counters';
import type { ExclusiveWorkRules, WorkInside } from '../../../core/ports/exclusive-work-rules';
import type { ForegroundWork } from '../../../core/ports/foreground-work';
import type { ReadRepositories, Repositories } from '../../../core/ports/repositories';
import { type TransactionBoundary, UnitOfWorkMisuse } from '../../../core/ports/transaction-boundary';
import { databaseFailureOf, isRefusedByDatabase } from '../../database/driver/database-failures';
import { isDeadlock } from '../../database/driver/postgres-errors';
import type { SqlRunner } from '../../database/driver/sql-runner';
import { postgresCounters } from './counters';
import { type Database, readRepositories, unitRepositories } from './repositories';
import { readStart, versionOf } from './repositories/traveller-repository';
import { AccountQueue } from './unit-of-work/account-queue';
import { AccountUnit, type Start } from './unit-of-work/account-unit';
import type { Claim } from './unit-of-work/gated-statement';
import type { KeyedRequests } from './unit-of-work/keyed-requests';
import { KnownTravellers } from './unit-of-work/known-travellers';
import { MAX_RUNS, type Outcome } from './unit-of-work/runs';

/**
 * Travellers each process remembers as it last wrote them, so a write usually needs no read first:
 * a few MiB, enough for the accounts writing at any one time.
 */
const KNOWN_TRAVELLERS = 10_000;

/** Why an account's unit of work ran again: another writer came first, or what it read moved meanwhile. */
export type RerunReason = 'conflict' | 'state-moved';
export type RerunListener = (accountId: string, reason: RerunReason) => void;

/**
 * The ways a unit of work reaches PostgreSQL (docs/architecture.md#units-of-work): an account's
 * exclusive write, a plain read (each statement on its own), a consistent read of one account
 * (reads checked against the account's version), and the counters (one statement each).
 *
 * An account's exclusive work runs optimistically (no lock): start from the traveller and its version
 * (as this process last wrote it, or read now), run the work with its reads sent at once and its
 * writes collected, then apply every write in ONE statement guarded by that version
 * (unit-of-work/write-set.ts). When another writer came first the statement changes nothing, and the
 * work runs again on the state that writer left: this is the one place work runs twice, and why the
 * port asks work to do nothing but read and write through its repositories. A refusal, or work that
 * wrote nothing, stands only if the version did not move while it read. Units of one account in one
 * process queue (AccountQueue), so reruns come only from writers in other processes. A keyed
 * request's write carries its kept answer (unit-of-work/keyed-requests.ts).
 */
export class PostgresTransactionBoundary implements TransactionBoundary, ForegroundWork {
  private readonly sql: SqlRunner;
  private readonly reads: ReadRepositories;
  private readonly counters: Counters;
  private readonly repositoriesOf: (unit: AccountUnit) => Repositories;
  private readonly known = new KnownTravellers(KNOWN_TRAVELLERS);
  private readonly queue = new AccountQueue();
  /** The rules of the unit whose work is running, where the boundary is asked for more. */
  private readonly inside = new AsyncLocalStorage<ExclusiveWorkRules>();

  constructor(
    db: Database,
    private readonly keyed: KeyedRequests,
    private readonly onRerun: RerunListener = () => undefined,
  ) {
    this.sql = db.sql;
    this.reads = readRepositories(db);
    this.counters = postgresCounters(db);
    this.repositoriesOf = (unit) => unitRepositories(db, unit);
  }

  async exclusive<T>(accountId: string, work: (repositories: Repositories) => Promise<T>): Promise<T> {
    this.refuseInside('second unit');
    const request = this.keyed.current();
    request?.beforeUnit();
    let leave: (() => void) | undefined;
    let heldForAnswer = false;
    try {
      leave = await this.queue.enter(accountId);
      for (let run = 1; run <= MAX_RUNS; run += 1) {
        // The traveller as this process last wrote it, or read now: on a later run, read again.
        const known = run === 1 ? this.known.get(accountId) : undefined;
        const read = known ? null : await readStart(this.sql, accountId);
        const start: Start | null = known ? { ...known, fresh: false } : read && { ...read, fresh: true };
        const unit = new AccountUnit(accountId, start);
        // What the work read agrees when the account's version is still the one it started from.
        const startedAt = start?.version ?? null;
        let result: T;
        try {
          result = await this.inside.run(unit.rules, () => work(this.repositoriesOf(unit)));
        } catch (error) {
          if (endsTheWork(error) || (await versionOf(this.sql, accountId)) === startedAt) throw error;
          this.rerun(accountId, 'state-moved');
          continue;
        }
        if (unit.wroteNothing) {
          if (unit.restsOnFreshStart || (await versionOf(this.sql, accountId)) === startedAt) return result;
          this.rerun(accountId, 'state-moved');
          continue;
        }
        // A keyed request's writes wait for its answer, to commit in the same statement.
        if (request) {
          request.holdWrites((claim) => this.apply(unit, claim), leave);
          heldForAnswer = true;
          return result;
        }
        if ((await this.apply(unit)) === 'applied') return result;
        this.rerun(accountId, 'conflict');
      }
      throw new Error(`the exclusive work of account ${accountId} lost to other writers ${MAX_RUNS} times`);
    } finally {
      if (!heldForAnswer) leave?.();
      request?.afterUnit();
    }
  }

  /** The account's units queue here: background work for it waits while some wait their turn. */
  giveWay(accountId: string, atMostMs: number): Promise<number> {
    return this.queue.giveWay(accountId, atMostMs);
  }

  async read<T>(work: (repositories: ReadRepositories) => Promise<T>): Promise<T> {
    this.refuseInside('read');
    this.keyed.current()?.beforeRead();
    return work(this.reads);
  }

  /**
   * Reads that agree: the account's version is read before and after them, and they run again
   * when it moved (an exclusive write of the account applied meanwhile). A refusal counts as an
   * answer: it stands only if the version held too.
   */
  async snapshot<T>(accountId: string, work: (repositories: ReadRepositories) => Promise<T>): Promise<T> {
    this.refuseInside('consistent read');
    this.keyed.current()?.beforeRead();
    for (let run = 1; run <= MAX_RUNS; run += 1) {
      const before = await versionOf(this.sql, accountId);
      const answer = await work(this.reads).then(
        (result) => ({ result }),
        (error: unknown) => ({ error }),
      );
      if ('error' in answer && endsTheWork(answer.error)) throw answer.error;
      if ((await versionOf(this.sql, accountId)) === before) {
        if ('error' in answer) throw answer.error;
        return answer.result;
      }
      this.onRerun(accountId, 'state-moved');
    }
    throw new Error(`the reads of account ${accountId} saw it change ${MAX_RUNS} times`);
  }

  async count<T>(work: (counters: Counters) => Promise<T>): Promise<T> {
    this.refuseInside('count');
    this.keyed.current()?.beforeRead();
    return work(this.counters);
  }

  /** Applies the unit's writes, with a keyed request's claim and its kept answer when given. */
  private async apply(unit: AccountUnit, claim?: Claim): Promise<Outcome> {
    // Built once: it maps the saved traveller to its row.
    const guard = unit.guard;
    let applied;
    try {
      applied = await unit.writes.apply(this.sql, { guard, claim });
    } catch (error) {
      // Ended to break a deadlock: nothing was written, and another writer came first.
      if (isDeadlock(error)) {
        this.known.forget(unit.accountId);
        return 'conflict';
      }
      // Refused by PostgreSQL: nothing was written. A write that knows the refusal (a taken email)
      // gives the domain's answer. Anything else (a connection lost on the way back) leaves it
      // unknown whether the statement committed, so it is not run again.
      throw (isRefusedByDatabase(error) && unit.writes.refusalOf(error)) || error;
    }
    // A save found no row. Removed by another writer, the unit runs again; never there, it is a defect.
    if (applied.missing) {
      if ((await versionOf(this.sql, unit.accountId)) === (unit.start?.version ?? null))
        throw unit.rules.savedNothing(`one of ${unit.writes.updatedRows}`);
      this.known.forget(unit.accountId);
      return 'conflict';
    }
    if (applied.keyTaken) return 'key-taken';
    if (guard && applied.version === null) {
      this.known.forget(unit.accountId);
      return 'conflict';
    }
    const traveller = unit.travellerNow;
    if (traveller) this.known.remember(unit.accountId, { traveller, version: applied.version ?? '0' });
    return 'applied';
  }

  /** Refuses work asked of the boundary from inside a unit's work (ExclusiveWorkRules). */
  private refuseInside(what: WorkInside): void {
    this.inside.getStore()?.refuseInside(what);
  }

  private rerun(accountId: string, reason: RerunReason): void {
    this.known.forget(accountId);
    this.onRerun(accountId, reason);
    // On the span of the use case that ran again, when tracing is on (docs/operations.md, "Traces").
    trace.getActiveSpan()?.addEvent('exclusive write ran again', { reason });
  }
}

/**
 * A failure that running the work again cannot mend: a defect, or the database failing it (out of
 * reach, or past its time bound, which a second run would only meet again).
 */
function endsTheWork(error: unknown): boolean {
  return error instanceof UnitOfWorkMisuse || databaseFailureOf(error) !== null;
}
