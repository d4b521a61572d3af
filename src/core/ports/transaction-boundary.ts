import type { Repositories } from './repositories';

/**
 * Where a use case's reads and writes become consistent. Work reaches stored state only through
 * the repositories it is given: what it decides follows from what it reads there.
 */
export interface TransactionBoundary {
  /**
   * An account's exclusive work: it behaves as if it ran alone on the account, across every process
   * sharing the database, and its writes apply all together or not at all (also when it throws).
   * It reads, then writes: a read after its first write is refused, since it would not see that
   * write. An account that has no traveller yet is being opened: its work creates it.
   */
  exclusive<T>(accountId: string, work: (repositories: Repositories) => Promise<T>): Promise<T>;
  /**
   * Statements each on its own: reads that need not agree with each other, and the counters that
   * are one statement by design (sign-in attempts, a key's last use).
   */
  read<T>(work: (repositories: Repositories) => Promise<T>): Promise<T>;
  /** Reads of one account that must agree with each other (a verdict built from two states is wrong). */
  snapshot<T>(accountId: string, work: (repositories: Repositories) => Promise<T>): Promise<T>;
}
