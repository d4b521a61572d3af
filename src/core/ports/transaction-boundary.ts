import type { Repositories } from './repositories';

/**
 * Where a use case's reads and writes become atomic. `exclusive` also serialises the writes of one
 * account (across processes sharing the database), so no update of an account's state is lost.
 */
export interface TransactionBoundary {
  exclusive<T>(accountId: string, work: (repositories: Repositories) => Promise<T>): Promise<T>;
  /** Atomic work that touches no existing account state (signing up). */
  atomic<T>(work: (repositories: Repositories) => Promise<T>): Promise<T>;
  /** Reads that need no lock and no transaction (one query, or queries that need not agree). */
  read<T>(work: (repositories: Repositories) => Promise<T>): Promise<T>;
  /** Several reads that must see one consistent state (a verdict built from two states is wrong). */
  snapshot<T>(work: (repositories: Repositories) => Promise<T>): Promise<T>;
}
