import { AsyncLocalStorage } from 'node:async_hooks';
import type { SqlRunner } from '../sql-runner';
import { type Claim, WriteSet } from './write-set';
import { MAX_RUNS, type Outcome } from './runs';
import { UnitOfWorkMisuse } from '../../../../core/ports/transaction-boundary';

/** Applies a held unit's writes with the claim, which carries the kept answer, in its one statement. */
type HeldWrites = (claim: Claim) => Promise<Outcome>;

/**
 * A request whose answer is kept (Idempotency-Key): its unit of work's statement waits for the
 * answer and carries it with the claim on the key, so the writes and the answer commit together or
 * not at all. Nothing may read or run after that unit: it would not see the writes still waiting.
 */
export class KeyedRequest {
  private held: { readonly apply: HeldWrites; readonly leave: () => void } | null = null;
  private unitRunning = false;
  /** Its answer kept or dropped: a unit still running then (one the request did not wait for) holds nothing. */
  private ended = false;

  beforeUnit(): void {
    if (this.held) throw new UnitOfWorkMisuse('a keyed request ran a second unit after the one whose writes wait');
    // Two at once: the second would wait in the account's queue behind the first, held for ever.
    if (this.unitRunning) throw new UnitOfWorkMisuse('a keyed request ran two units at once');
    this.unitRunning = true;
  }

  afterUnit(): void {
    this.unitRunning = false;
  }

  beforeRead(): void {
    if (this.held) throw new UnitOfWorkMisuse('a keyed request read after the unit whose writes wait');
  }

  /** Takes the unit's writes and its place in the account's queue, until the answer is kept. */
  hold(apply: HeldWrites, leave: () => void): void {
    if (this.ended) throw new UnitOfWorkMisuse('a keyed request ended before its unit of work did');
    this.held = { apply, leave };
  }

  /** The key claimed with the answer, and the held writes with them or none. */
  async keep(sql: SqlRunner, claim: Claim): Promise<Outcome> {
    this.ended = true;
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
    this.ended = true;
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
