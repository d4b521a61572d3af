import type { Repositories } from './repositories';

/**
 * Where a use case's reads and writes become atomic. `exclusive` also serialises the writes of one
 * account (across processes sharing the database), so no update of an account's state is lost.
 */
export interface TransactionBoundary {
  exclusive<T>(accountId: string, work: (repositories: Repositories) => Promise<T>): Promise<T>;
  /** Atomic work that touches no existing account state (signing up). */
  atomic<T>(work: (repositories: Repositories) => Promise<T>): Promise<T>;
  /** Reads that need no lock and no transaction. */
  read<T>(work: (repositories: Repositories) => Promise<T>): Promise<T>;
}
