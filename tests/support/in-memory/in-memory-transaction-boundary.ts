import type { Repositories } from '../../../src/core/ports/repositories';
import type { TransactionBoundary } from '../../../src/core/ports/transaction-boundary';
import type { InMemoryDatabase } from './in-memory-database';
import { Journal } from './table';

/**
 * Transactions over an InMemoryDatabase: `exclusive` runs one account's work strictly one after
 * another (a promise chain per account) and undoes a failed work's writes; `read` just runs.
 */
export class InMemoryTransactionBoundary implements TransactionBoundary {
  private readonly tails = new Map<string, Promise<unknown>>();

  constructor(private readonly database: InMemoryDatabase) {}

  exclusive<T>(accountId: string, work: (repositories: Repositories) => Promise<T>): Promise<T> {
    const previous = this.tails.get(accountId) ?? Promise.resolve();
    const result = previous.then(
      () => this.journalled(work),
      () => this.journalled(work),
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

  private async journalled<T>(work: (repositories: Repositories) => Promise<T>): Promise<T> {
    const journal = new Journal();
    try {
      const result = await work(this.database.repositories(journal));
      journal.commit();
      return result;
    } catch (error) {
      journal.rollback();
      throw error;
    }
  }

  /** No isolation in the fakes: unit tests run snapshot readers while no writer is under way. */
  snapshot<T>(_accountId: string, work: (repositories: Repositories) => Promise<T>): Promise<T> {
    return this.read(work);
  }

  read<T>(work: (repositories: Repositories) => Promise<T>): Promise<T> {
    return work(this.database.repositories(null));
  }
}
