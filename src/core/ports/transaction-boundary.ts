import type { Counters } from './counters';
import type { ReadRepositories, Repositories } from './repositories';

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
  /** Reads each a statement on its own, which need not agree with each other. */
  read<T>(work: (repositories: ReadRepositories) => Promise<T>): Promise<T>;
  /** Reads of one account that must agree with each other (a verdict built from two states is wrong). */
  snapshot<T>(accountId: string, work: (repositories: ReadRepositories) => Promise<T>): Promise<T>;
  /** The counters that are one statement by design (sign-in attempts, a key's last use). */
  count<T>(work: (counters: Counters) => Promise<T>): Promise<T>;
}

/**
 * Misuse of a unit of work by the code that runs it (a read after a write, another account's
 * traveller, a keyed request's second unit): a defect to fix, never retried.
 */
export class UnitOfWorkMisuse extends Error {
  constructor(what: string) {
    super(`unit of work misused: ${what}`);
    this.name = 'UnitOfWorkMisuse';
  }
}
