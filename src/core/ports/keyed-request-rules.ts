import { UnitOfWorkMisuse } from './transaction-boundary';

/**
 * The rules of a keyed request's units of work (IdempotencyStore.answerOnce), which every
 * TransactionBoundary keeps: its writing unit's writes wait for the answer, to be kept with it, so
 * nothing may read or run after that unit (it would not see them), and no two units run at once
 * (the second would wait in the account's queue behind the first, held for ever).
 */
export class KeyedRequestRules {
  private holding = false;
  private unitRunning = false;
  /** Its answer kept or dropped: a unit still running then (one the request did not wait for) holds nothing. */
  private ended = false;

  beforeUnit(): void {
    if (this.holding) throw new UnitOfWorkMisuse('a keyed request ran a second unit after the one whose writes wait');
    if (this.unitRunning) throw new UnitOfWorkMisuse('a keyed request ran two units at once');
    this.unitRunning = true;
  }

  afterUnit(): void {
    this.unitRunning = false;
  }

  beforeRead(): void {
    if (this.holding) throw new UnitOfWorkMisuse('a keyed request read after the unit whose writes wait');
  }

  /** A unit's writes now wait for the answer. */
  hold(): void {
    if (this.ended) throw new UnitOfWorkMisuse('a keyed request ended before its unit of work did');
    this.holding = true;
  }

  /** The answer is kept or dropped, and the held writes with it. */
  end(): void {
    this.ended = true;
    this.holding = false;
  }
}
