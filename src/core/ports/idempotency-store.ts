/** The first answer to a request made with an Idempotency-Key, replayed to its retries. */
export interface StoredResponse {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * A request's claim on a key. A claim taken over as abandoned is made anew (a later `claimedAt`), so
 * the request that lost it cannot answer or release the new one.
 */
export interface KeyClaim {
  readonly accountId: string;
  readonly key: string;
  readonly claimedAt: Date;
}

/** What reserving a key found: the request may act, or it is a retry, a duplicate in flight, or a misuse. */
export type Reservation =
  | { readonly outcome: 'reserved'; readonly claim: KeyClaim }
  | { readonly outcome: 'replay'; readonly response: StoredResponse }
  | {
      readonly outcome: 'in_progress';
      /**
       * How long until the claim counts as abandoned and a retry may take the key over. A live
       * request's answer is kept well before; a claim whose process died is not told apart from it.
       */
      readonly retryAfterMs: number;
    }
  | { readonly outcome: 'reused' };

/**
 * The claim on a key was gone when the answer was to be kept (taken over as abandoned): another
 * request acts under the key now, so this one's writes were rolled back, and its claim, which is
 * no longer its own, must not be released.
 */
export class IdempotencyClaimLost extends Error {
  constructor(readonly key: string) {
    super('the claim on an Idempotency-Key was lost before its answer was kept');
  }
}

/**
 * Idempotency keys per account (Stripe's semantics). An abstract class rather than an interface only
 * so that it can serve as its own injection token; it carries no behaviour.
 */
export abstract class IdempotencyStore {
  /**
   * Claims `key` for a request whose method, path and body digest to `requestDigest`, atomically
   * across processes. A key older than the retention period counts as never used.
   */
  abstract reserve(accountId: string, key: string, requestDigest: string): Promise<Reservation>;
  /**
   * Produces the answer of a reserved key and keeps it for its retries, atomically with what the
   * request wrote: every write `produce` makes through the TransactionBoundary commits together
   * with the answer, so a process that dies in between leaves both or neither. If
   * `produce` throws, or keeping fails, nothing it wrote stays (the caller then releases the key,
   * unless the failure is IdempotencyClaimLost). Its writes wait for the answer, so `produce` runs
   * at most one unit of work that writes and reads nothing after it: a read or a second unit would
   * not see them (refused as a defect). It may be run again from the start when another writer of
   * the account came first (docs/decisions.md, "Idempotency-Key").
   */
  abstract answerOnce(claim: KeyClaim, produce: () => Promise<StoredResponse>): Promise<StoredResponse>;
  /** Gives a reserved key back unanswered (the request failed or was aborted): a retry acts. */
  abstract release(claim: KeyClaim): Promise<void>;
}
