import { AsyncLocalStorage } from 'node:async_hooks';
import { IdempotencyClaimLost } from '../../../../core/ports/idempotency-store';
import type { SqlRunner } from '../sql-runner';
import { type Claim, WriteSet } from './write-set';
import { MAX_RUNS, type Outcome } from './runs';
import { UnitOfWorkMisuse } from './writes';

/** Applies a held unit's writes with the claim and the kept answer, in its one statement. */
type HeldWrites = (claim: Claim, keep: (writes: WriteSet) => void) => Promise<Outcome>;

/**
 * A request whose answer is kept (Idempotency-Key): its unit of work's statement waits for the
 * answer and carries it, so the writes and the answer commit together or not at all. Nothing may
 * read or run after that unit: it would not see the writes still waiting.
 */
export class KeyedRequest {
  private held: { readonly apply: HeldWrites; readonly leave: () => void } | null = null;

  beforeUnit(): void {
    if (this.held) throw new UnitOfWorkMisuse('a keyed request ran a second unit after the one whose writes wait');
  }

  beforeRead(): void {
    if (this.held) throw new UnitOfWorkMisuse('a keyed request read after the unit whose writes wait');
  }

  /** Takes the unit's writes and its place in the account's queue, until the answer is kept. */
  hold(apply: HeldWrites, leave: () => void): void {
    this.held = { apply, leave };
  }

  /** The answer kept, with the held writes in their statement or alone. */
  async keep(sql: SqlRunner, claim: Claim, keep: (writes: WriteSet) => void): Promise<Outcome> {
    const held = this.held;
    if (!held) {
      const writes = new WriteSet();
      keep(writes);
      return (await writes.apply(sql, { claim })).claimed ? 'applied' : 'claim-lost';
    }
    try {
      return await held.apply(claim, keep);
    } finally {
      this.discard();
    }
  }

  /** Lets the held writes go unapplied (the request failed). */
  discard(): void {
    this.held?.leave();
    this.held = null;
  }
}

/** The keyed requests under way; the boundary asks which one the current work belongs to. */
export class KeyedRequests {
  private readonly requests = new AsyncLocalStorage<KeyedRequest>();

  constructor(private readonly sql: SqlRunner) {}

  current(): KeyedRequest | undefined {
    return this.requests.getStore();
  }

  /**
   * Produces the answer and keeps it with what producing it wrote, in one statement. When another
   * writer of the account came first, that statement changes nothing and the request is produced
   * again on the new state (its answer may differ). IdempotencyClaimLost when the claim was taken
   * over meanwhile: nothing was written.
   */
  async answer<T>(claim: Claim, produce: () => Promise<T>, keep: (answer: T, writes: WriteSet) => void): Promise<T> {
    for (let run = 1; run <= MAX_RUNS; run += 1) {
      const request = new KeyedRequest();
      let answer: T;
      try {
        answer = await this.requests.run(request, produce);
      } catch (error) {
        request.discard();
        throw error;
      }
      const outcome = await request.keep(this.sql, claim, (writes) => keep(answer, writes));
      if (outcome === 'applied') return answer;
      if (outcome === 'claim-lost') throw new IdempotencyClaimLost(claim.key);
    }
    throw new Error(`the keyed request of account ${claim.accountId} lost to other writers ${MAX_RUNS} times`);
  }
}
