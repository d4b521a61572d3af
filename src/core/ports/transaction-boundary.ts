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
   * It may run more than once (when another process wrote the account meanwhile), so it does
   * nothing but read and write through its repositories. It reads, then writes, and asks this
   * boundary for nothing while it runs; its traveller is its own account's; a save changes a row
   * that is there (ExclusiveWorkRules). An account that has no traveller yet is being opened: its
   * work creates it.
   */
  exclusive<T>(accountId: string, work: (repositories: Repositories) => Promise<T>): Promise<T>;
  /** Reads each a statement on its own, which need not agree with each other; given reads alone. */
  read<T>(work: (repositories: ReadRepositories) => Promise<T>): Promise<T>;
  /** Reads of one account that must agree with each other (a verdict built from two states is wrong). */
  snapshot<T>(accountId: string, work: (repositories: ReadRepositories) => Promise<T>): Promise<T>;
  /** The counters that are one statement by design (sign-in attempts, a key's last use). */
  count<T>(work: (counters: Counters) => Promise<T>): Promise<T>;
}

/**
 * Misuse of a unit of work by the code that runs it (a read after a write, another account's
 * traveller, a save of a row never added, a keyed request's second unit): a defect to fix, never
 * retried.
 */
export class UnitOfWorkMisuse extends Error {
  constructor(what: string) {
    super(`unit of work misused: ${what}`);
    this.name = 'UnitOfWorkMisuse';
  }
}
