import { KeyedRequestRules } from '../../../src/core/ports/keyed-request-rules';
import type { InMemoryUnit } from './in-memory-unit';

/**
 * A keyed request under way in the fakes, keeping the rules PostgreSQL's keeps (KeyedRequestRules):
 * its one writing unit's writes are held, with the account's queue, until its answer is kept or
 * dropped.
 */
export class KeyedScope extends KeyedRequestRules {
  private held: { readonly unit: InMemoryUnit; readonly release: () => void } | null = null;

  /**
   * Takes the unit's writes: the promise settles, and the account's next unit runs, once they are
   * kept or dropped.
   */
  holdWrites(unit: InMemoryUnit): Promise<void> {
    this.hold();
    return new Promise((release) => {
      this.held = { unit, release };
    });
  }

  /**
   * The answer is kept: the held writes apply with it, unless another writer of the account came
   * first ('conflict': nothing applied, and the request is produced again).
   */
  keep(): 'applied' | 'conflict' {
    return this.settle((unit) => unit.apply()) ?? 'applied';
  }

  /** The request failed, or its key was kept already: the held writes are dropped. */
  discard(): void {
    this.settle(() => undefined);
  }

  private settle<T>(how: (unit: InMemoryUnit) => T): T | undefined {
    this.end();
    const held = this.held;
    this.held = null;
    if (!held) return undefined;
    try {
      return how(held.unit);
    } finally {
      held.release();
    }
  }
}
