import { AsyncLocalStorage } from 'node:async_hooks';
import type { Counters } from '../../../src/core/ports/counters';
import type { ReadRepositories, Repositories } from '../../../src/core/ports/repositories';
import { type TransactionBoundary, UnitOfWorkMisuse } from '../../../src/core/ports/transaction-boundary';
import type { InMemoryDatabase } from './in-memory-database';
import { KeyedScope } from './keyed-scope';
import { readsAsking } from './reads-asking';
import { Journal } from './table';

export interface InMemoryBoundaryOptions {
  /**
   * Runs every exclusive work twice, the first run's writes undone, as PostgreSQL's boundary does
   * when another writer came first: a use case that is not safe to run again fails its test.
   */
  readonly runEachUnitTwice?: boolean;
}

/** A keyed request's answer, produced with its writes held: kept with them, or dropped with them. */
export interface KeyedRun<T> {
  readonly answer: T;
  keep(): void;
  discard(): void;
}

/**
 * Transactions over an InMemoryDatabase, keeping the port's rules as PostgreSQL's boundary does:
 * `exclusive` runs one account's work strictly one after another (a promise chain per account),
 * undoes a failed work's writes and refuses a read after its first write; `read` just runs. A
 * keyed request (`keyed`, for InMemoryIdempotencyStore) keeps its rules too (KeyedScope).
 */
export class InMemoryTransactionBoundary implements TransactionBoundary {
  private readonly tails = new Map<string, Promise<unknown>>();
  private readonly keyedRequests = new AsyncLocalStorage<KeyedScope>();

  constructor(
    private readonly database: InMemoryDatabase,
    private readonly options: InMemoryBoundaryOptions = {},
  ) {}

  async exclusive<T>(accountId: string, work: (repositories: Repositories) => Promise<T>): Promise<T> {
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

  private queued<T>(
    accountId: string,
    work: (repositories: Repositories) => Promise<T>,
    request: KeyedScope | undefined,
  ): Promise<{ readonly result: T; readonly held?: Promise<void> }> {
    const previous = this.tails.get(accountId) ?? Promise.resolve();
    const result = previous.then(
      () => this.runs(work, request),
      () => this.runs(work, request),
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

  private async runs<T>(
    work: (repositories: Repositories) => Promise<T>,
    request: KeyedScope | undefined,
  ): Promise<{ readonly result: T; readonly held?: Promise<void> }> {
    if (this.options.runEachUnitTwice) {
      const discarded = new Journal();
      await this.run(work, discarded).catch(() => undefined);
      discarded.rollback();
    }
    const journal = new Journal();
    try {
      const result = await this.run(work, journal);
      if (request && journal.wrote) return { result, held: request.holdWrites(journal) };
      journal.commit();
      return { result };
    } catch (error) {
      journal.rollback();
      throw error;
    }
  }

  private run<T>(work: (repositories: Repositories) => Promise<T>, journal: Journal): Promise<T> {
    return work(
      readsAsking(this.database.repositories(journal), () => {
        if (journal.wrote) throw new UnitOfWorkMisuse('a read after a write, which would not see it');
      }),
    );
  }

  /** No isolation in the fakes: unit tests run snapshot readers while no writer is under way. */
  snapshot<T>(_accountId: string, work: (repositories: ReadRepositories) => Promise<T>): Promise<T> {
    return this.read(work);
  }

  async read<T>(work: (repositories: ReadRepositories) => Promise<T>): Promise<T> {
    this.keyedRequests.getStore()?.beforeRead();
    return work(this.database.repositories(null));
  }

  async count<T>(work: (counters: Counters) => Promise<T>): Promise<T> {
    this.keyedRequests.getStore()?.beforeRead();
    return work(this.database.counters());
  }
}
