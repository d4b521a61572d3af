import type { Repositories } from './repositories';

/**
 * Where a use case's reads and writes become atomic. `exclusive` work of one account behaves as if
 * it ran alone (across processes sharing the database): it sees no other's writes half done, and
 * no update of the account's state is lost. An adapter may run the work more than once (when
 * another writer came first, say); only the last run's writes and result count, so the work must
 * do nothing but read and write through the repositories it is given. Work that reads everything it
 * needs before its first write lets an adapter send all its writes at once.
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
