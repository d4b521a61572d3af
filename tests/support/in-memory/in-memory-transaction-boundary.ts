import type { Counters } from '../../../src/core/ports/counters';
import type { ReadRepositories, Repositories } from '../../../src/core/ports/repositories';
import { type TransactionBoundary, UnitOfWorkMisuse } from '../../../src/core/ports/transaction-boundary';
import type { InMemoryDatabase } from './in-memory-database';
import { readsAsking } from './reads-asking';
import { Journal } from './table';

export interface InMemoryBoundaryOptions {
  /**
   * Runs every exclusive work twice, the first run's writes undone, as PostgreSQL's boundary does
   * when another writer came first: a use case that is not safe to run again fails its test.
   */
  readonly runEachUnitTwice?: boolean;
}

/**
 * Transactions over an InMemoryDatabase, keeping the port's rules as PostgreSQL's boundary does:
 * `exclusive` runs one account's work strictly one after another (a promise chain per account),
 * undoes a failed work's writes and refuses a read after its first write; `read` just runs.
 */
export class InMemoryTransactionBoundary implements TransactionBoundary {
  private readonly tails = new Map<string, Promise<unknown>>();

  constructor(
    private readonly database: InMemoryDatabase,
    private readonly options: InMemoryBoundaryOptions = {},
  ) {}

  exclusive<T>(accountId: string, work: (repositories: Repositories) => Promise<T>): Promise<T> {
    const previous = this.tails.get(accountId) ?? Promise.resolve();
    const result = previous.then(
      () => this.runs(work),
      () => this.runs(work),
    );
    // The next work of this account waits for this one, whether it succeeds or fails.
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(accountId, tail);
    void tail.then(() => {
      if (this.tails.get(accountId) === tail) this.tails.delete(accountId);
    });
    return result;
  }

  private async runs<T>(work: (repositories: Repositories) => Promise<T>): Promise<T> {
    if (this.options.runEachUnitTwice) {
      const discarded = new Journal();
      await this.run(work, discarded).catch(() => undefined);
      discarded.rollback();
    }
    const journal = new Journal();
    try {
      const result = await this.run(work, journal);
      journal.commit();
      return result;
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

  read<T>(work: (repositories: ReadRepositories) => Promise<T>): Promise<T> {
    return work(this.database.repositories(null));
  }

  count<T>(work: (counters: Counters) => Promise<T>): Promise<T> {
    return work(this.database.counters());
  }
}
