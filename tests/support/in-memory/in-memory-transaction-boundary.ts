import { AsyncLocalStorage } from 'node:async_hooks';
import type { ExclusiveWorkRules, WorkInside } from '../../../src/core/ports/exclusive-work-rules';
import type { Counters } from '../../../src/core/ports/counters';
import type { ReadRepositories, Repositories } from '../../../src/core/ports/repositories';
import { onlyReads } from '../../../src/core/ports/repository-reads';
import { type TransactionBoundary, UnitOfWorkMisuse } from '../../../src/core/ports/transaction-boundary';
import type { InMemoryDatabase } from './in-memory-database';
import { InMemoryUnit } from './in-memory-unit';
import { KeyedScope } from './keyed-scope';

export interface InMemoryBoundaryOptions {
  /**
   * Runs every exclusive work twice, the first run's writes dropped, as PostgreSQL's boundary does
   * when another writer came first: a use case that is not safe to run again fails its test.
   */
  readonly runEachUnitTwice?: boolean;
}

/** A keyed request's answer, produced with its writes held: kept with them, or dropped with them. */
export interface KeyedRun<T> {
  readonly answer: T;
  /** 'conflict': another writer of the account came first, nothing was kept: produce it again. */
  keep(): 'applied' | 'conflict';
  discard(): void;
}

/** Runs lost in a row to other writers before the work is reported (PostgreSQL's MAX_RUNS). */
const MAX_RUNS = 100;

/**
 * Transactions over an InMemoryDatabase, as PostgreSQL's boundary runs them: one account's exclusive
 * work one after another in this boundary (a promise chain per account), its writes applied whole
 * at its end if no other boundary on the database (another process) wrote the account meanwhile,
 * and run again on the new state if one did (InMemoryUnit); the rules of ExclusiveWorkRules; reads
 * given reads alone. A keyed request (`keyed`, for InMemoryIdempotencyStore) keeps its rules too
 * (KeyedScope).
 */
export class InMemoryTransactionBoundary implements TransactionBoundary {
  private readonly tails = new Map<string, Promise<unknown>>();
  private readonly keyedRequests = new AsyncLocalStorage<KeyedScope>();
  /** The rules of the unit whose work is running, where the boundary is asked for more. */
  private readonly inside = new AsyncLocalStorage<ExclusiveWorkRules>();

  constructor(
    private readonly database: InMemoryDatabase,
    private readonly options: InMemoryBoundaryOptions = {},
  ) {}

  async exclusive<T>(accountId: string, work: (repositories: Repositories) => Promise<T>): Promise<T> {
    this.refuseInside('second unit');
    const request = this.keyedRequests.getStore();
    request?.beforeUnit();
    try {
      return (await this.queued(accountId, work, request)).result;
    } finally {
      request?.afterUnit();
    }
  }

  /**
   * Produces a keyed request's answer: its writing unit's writes wait, and the account's next work
   * with them, until the answer is kept or dropped.
   */
  async keyed<T>(produce: () => Promise<T>): Promise<KeyedRun<T>> {
    const request = new KeyedScope();
    try {
      const answer = await this.keyedRequests.run(request, produce);
      return { answer, keep: () => request.keep(), discard: () => request.discard() };
    } catch (error) {
      request.discard();
      throw error;
    }
  }

  /** Reads that agree: run again when an exclusive write of the account applied meanwhile. */
  async snapshot<T>(accountId: string, work: (repositories: ReadRepositories) => Promise<T>): Promise<T> {
    this.beforeRead('consistent read');
    for (let run = 1; run <= MAX_RUNS; run += 1) {
      const before = this.database.versionOf(accountId);
      const answer = await work(this.reads()).then(
        (result) => ({ result }),
        (error: unknown) => ({ error }),
      );
      if (this.database.versionOf(accountId) !== before) continue;
      if ('error' in answer) throw answer.error;
      return answer.result;
    }
    throw new Error(`the reads of account ${accountId} saw it change ${MAX_RUNS} times`);
  }

  async read<T>(work: (repositories: ReadRepositories) => Promise<T>): Promise<T> {
    this.beforeRead('read');
    return work(this.reads());
  }

  async count<T>(work: (counters: Counters) => Promise<T>): Promise<T> {
    this.beforeRead('count');
    return work(this.database.counters());
  }

  private reads(): ReadRepositories {
    return onlyReads(this.database.repositories(null));
  }

  private beforeRead(what: WorkInside): void {
    this.refuseInside(what);
    this.keyedRequests.getStore()?.beforeRead();
  }

  private refuseInside(what: WorkInside): void {
    this.inside.getStore()?.refuseInside(what);
  }

  private queued<T>(
    accountId: string,
    work: (repositories: Repositories) => Promise<T>,
    request: KeyedScope | undefined,
  ): Promise<{ readonly result: T; readonly held?: Promise<void> }> {
    const previous = this.tails.get(accountId) ?? Promise.resolve();
    const result = previous.then(
      () => this.runs(accountId, work, request),
      () => this.runs(accountId, work, request),
    );
    // The next work of this account waits for this one, whether it succeeds or fails, and for a
    // keyed request's held writes to be kept or dropped.
    const tail = result.then(
      ({ held }) => held,
      () => undefined,
    );
    this.tails.set(accountId, tail);
    void tail.then(() => {
      if (this.tails.get(accountId) === tail) this.tails.delete(accountId);
    });
    return result;
  }

  /**
   * Runs the work until one run stands: a refusal or a read-only answer when nothing moved the
   * account meanwhile, or writes applied before another writer's (as PostgreSQL's boundary does).
   */
  private async runs<T>(
    accountId: string,
    work: (repositories: Repositories) => Promise<T>,
    request: KeyedScope | undefined,
  ): Promise<{ readonly result: T; readonly held?: Promise<void> }> {
    for (let run = 1; run <= MAX_RUNS; run += 1) {
      const unit = new InMemoryUnit(this.database, accountId);
      // Asked to, the first run is a rehearsal whose outcome and writes are dropped.
      const rehearsal = run === 1 && this.options.runEachUnitTwice === true;
      let result: T;
      try {
        result = await this.inside.run(unit.rules, () => work(unit.repositories()));
      } catch (error) {
        if (rehearsal) continue;
        if (error instanceof UnitOfWorkMisuse || unit.stillAtStart) throw error;
        continue;
      }
      if (rehearsal) continue;
      if (unit.wroteNothing) {
        if (unit.stillAtStart) return { result };
        continue;
      }
      if (request) return { result, held: request.holdWrites(unit) };
      if (unit.apply() === 'applied') return { result };
    }
    throw new Error(`the exclusive work of account ${accountId} lost to other writers ${MAX_RUNS} times`);
  }
}
