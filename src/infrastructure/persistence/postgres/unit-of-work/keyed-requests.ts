import { AsyncLocalStorage } from 'node:async_hooks';
import type { SqlRunner } from '../../../database/driver/sql-runner';
import type { Claim } from './gated-statement';
import { WriteSet } from './write-set';
import { MAX_RUNS, type Outcome } from './runs';
import { KeyedRequestRules } from '../../../../core/ports/keyed-request-rules';

/** Applies a held unit's writes with the claim, which carries the kept answer, in its one statement. */
type HeldWrites = (claim: Claim) => Promise<Outcome>;

/**
 * A request whose answer is kept (Idempotency-Key): its unit of work's statement waits for the
 * answer and carries it with the claim on the key, so the writes and the answer commit together or
 * not at all. Nothing may read or run after that unit: it would not see the writes still waiting.
 */
export class KeyedRequest extends KeyedRequestRules {
  private held: { readonly apply: HeldWrites; readonly leave: () => void } | null = null;

  /** Takes the unit's writes and its place in the account's queue, until the answer is kept. */
  holdWrites(apply: HeldWrites, leave: () => void): void {
    this.hold();
    this.held = { apply, leave };
  }

  /** The key claimed with the answer, and the held writes with them or none. */
  async keep(sql: SqlRunner, claim: Claim): Promise<Outcome> {
    this.end();
    const held = this.held;
    if (!held) return (await new WriteSet().apply(sql, { claim })).keyTaken ? 'key-taken' : 'applied';
    try {
      return await held.apply(claim);
    } finally {
      this.discard();
    }
  }

  /** Lets the held writes go unapplied (the request failed). */
  discard(): void {
    this.end();
    this.held?.leave();
    this.held = null;
  }
}

/** The keyed requests under way; the boundary asks which one the current work belongs to. */
export class KeyedRequests {
  private readonly requests = new AsyncLocalStorage<KeyedRequest>();
  private underWay = 0;

  constructor(private readonly sql: SqlRunner) {}

  current(): KeyedRequest | undefined {
    return this.requests.getStore();
  }

  /**
   * Produces the answer and claims the key with it and with what producing it wrote, in one
   * statement. When another writer of the account came first, that statement changes nothing and
   * the request is produced again on the new state (its answer may differ). Null when the key is
   * still kept for a request (a retry's first answer, or another request's): nothing was written.
   */
  async answer<T>(produce: () => Promise<T>, claimOf: (answer: T) => Claim): Promise<{ readonly kept: T } | null> {
    this.underWay += 1;
    try {
      return await this.answerUnderWay(produce, claimOf);
    } finally {
      this.underWay -= 1;
      // On Node 20 an AsyncLocalStorage in use slows every promise of the process, keyed or not
      // (docs/performance.md): off while no keyed request needs it, on again with the next one.
      if (this.underWay === 0) this.requests.disable();
    }
  }

  private async answerUnderWay<T>(
    produce: () => Promise<T>,
    claimOf: (answer: T) => Claim,
  ): Promise<{ readonly kept: T } | null> {
    for (let run = 1; run <= MAX_RUNS; run += 1) {
      const request = new KeyedRequest();
      let answer: T;
      let claim: Claim;
      try {
        answer = await this.requests.run(request, produce);
        claim = claimOf(answer);
      } catch (error) {
        request.discard();
        throw error;
      }
      const outcome = await request.keep(this.sql, claim);
      if (outcome === 'applied') return { kept: answer };
      if (outcome === 'key-taken') return null;
    }
    throw new Error(`a keyed request lost to other writers of its account ${MAX_RUNS} times`);
  }
}
