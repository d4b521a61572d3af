import { KeyedRequestRules } from '../../../src/core/ports/keyed-request-rules';
import type { Journal } from './table';

/**
 * A keyed request under way in the fakes, keeping the rules PostgreSQL's keeps (KeyedRequestRules):
 * its one writing unit's writes are held, with the account's queue, until its answer is kept or
 * dropped.
 */
export class KeyedScope extends KeyedRequestRules {
  private held: { readonly journal: Journal; readonly release: () => void } | null = null;

  /**
   * Takes the unit's writes: the promise settles, and the account's next unit runs, once they are
   * kept or dropped.
   */
  holdWrites(journal: Journal): Promise<void> {
    this.hold();
    return new Promise((release) => {
      this.held = { journal, release };
    });
  }

  /** The answer is kept: the held writes commit with it. */
  keep(): void {
    this.settle((journal) => journal.commit());
  }

  /** The request failed, or its key was kept already: the held writes are undone. */
  discard(): void {
    this.settle((journal) => journal.rollback());
  }

  private settle(how: (journal: Journal) => void): void {
    this.end();
    const held = this.held;
    this.held = null;
    if (!held) return;
    how(held.journal);
    held.release();
  }
}
