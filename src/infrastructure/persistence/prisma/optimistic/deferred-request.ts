import type { SqlRunner } from '../sql-runner';

/**
 * Thrown where a keyed request run optimistically needs what only its request transaction gives
 * (a second unit of work, a read after its writes, a refusal to be decided under the lock): the
 * request then runs again in that transaction, and this run's answer does not count.
 */
export class NeedsRequestTransaction extends Error {
  constructor(reason: string) {
    super(`the keyed request needs its transaction: ${reason}`);
    this.name = 'NeedsRequestTransaction';
  }
}

export type DeferredOutcome = 'applied' | 'conflict' | 'claim-lost';

/** The writes of a keyed request's one unit of work, held back until its answer can go with them. */
export interface PendingWrites {
  /**
   * Applies the writes, then `keep`, in one transaction: committed when the writes applied and
   * `keep` answers true (the claim was still the request's), otherwise rolled back.
   */
  apply(keep: (sql: SqlRunner) => Promise<boolean>): Promise<DeferredOutcome>;
}

/**
 * A request whose answer is kept (Idempotency-Key), run optimistically first: its one exclusive
 * unit of work runs as an optimistic unit does (optimistic/run-optimistically.ts), but its writes
 * wait for the request's answer and commit with it: the guarded statement and the kept answer in
 * one transaction on the pool, a few round trips instead of a Prisma transaction's ten. Anything
 * beyond one unit of work, or reads before it, gives way to the request transaction
 * (request-transactions.ts).
 */
export class DeferredRequest {
  private unitRan = false;
  pending: PendingWrites | null = null;
  /** Why this run gave way; set even if the work caught the error that said so. */
  abandoned: string | null = null;

  /** A unit of work starts: only the first may run here. */
  beginUnit(): void {
    if (this.unitRan) this.abandon('a second unit of work');
    this.unitRan = true;
  }

  /** A read outside the unit: before it, it sees what any read would; after it, not the unit's writes. */
  beforeRead(): void {
    if (this.unitRan) this.abandon('a read after the unit of work');
  }

  abandon(reason: string): never {
    this.abandoned ??= reason;
    throw new NeedsRequestTransaction(reason);
  }
}
