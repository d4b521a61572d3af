/** The first answer to a request made with an Idempotency-Key, as the request produced it. */
export interface StoredResponse {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * A keyed request's answer as kept and as sent, replayed to its retries: its body written as JSON
 * once, so that a long answer is neither serialized twice nor held as objects while its key is
 * claimed, and a replay is sent as it was kept.
 */
export interface KeptResponse {
  readonly status: number;
  /** The body as JSON text. */
  readonly json: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** A kept answer's body is at most this long (as JSON text, in bytes); a longer one is not kept. */
export const MAX_KEPT_ANSWER_BYTES = 64 * 1024;

/**
 * Why a request's answer was not kept: longer than MAX_KEPT_ANSWER_BYTES, or its account's kept
 * answers reached their quota for the hour (KeptAnswers).
 */
export type NotKeptReason = 'too_long' | 'quota_reached';

/**
 * How a keyed request was answered: it acted, or it is a retry, or the key was used for another
 * request, or it is a retry of a request that acted but whose answer was not kept (its status and
 * why given).
 */
export type KeyedAnswer =
  | { readonly outcome: 'answered'; readonly response: KeptResponse }
  | { readonly outcome: 'replay'; readonly response: KeptResponse }
  | { readonly outcome: 'reused' }
  | { readonly outcome: 'not-kept'; readonly status: number; readonly reason: NotKeptReason };

/** What a key already kept answers a request with it: a retry's answer, without acting. */
export type EarlierAnswer = Exclude<KeyedAnswer, { readonly outcome: 'answered' }>;

/** Whether an answer whose body is `bytes` long (as JSON text) may be kept: null, or why not. */
export type KeepingRule = (bytes: number) => Promise<NotKeptReason | null>;

/**
 * Why an answer whose body is `bytes` long is not kept, for every store: longer than
 * MAX_KEPT_ANSWER_BYTES (not charged to the account), or as `keeping` judges it; null to keep it.
 */
export async function notKeptReason(bytes: number, keeping: KeepingRule): Promise<NotKeptReason | null> {
  return bytes > MAX_KEPT_ANSWER_BYTES ? 'too_long' : keeping(bytes);
}

/**
 * Idempotency keys per account (docs/decisions.md, "Idempotency-Key"). An abstract class rather than an interface only
 * so that it can serve as its own injection token; it carries no behaviour.
 */
export abstract class IdempotencyStore {
  /**
   * Answers a request made with `key`, whose method, path and body digest to `requestDigest`:
   * `produce` makes the answer, and the key is claimed with it, atomically with what the request
   * wrote and across processes. Every write `produce` makes through the TransactionBoundary
   * commits with the claim, so a process that dies in between leaves both or neither. When the key
   * is already kept (a retry), nothing `produce` wrote stays and the kept answer is replayed; with
   * another request, `reused`. If `produce` throws, nothing it wrote stays and no key is claimed.
   * Its writes wait for the answer, so `produce` runs at most one unit of work that writes and
   * reads nothing after it: a read or a second unit would not see them (refused as a defect). It
   * may be run again from the start when another writer of the account came first. A key older
   * than the retention period counts as never used. An answer that `keeping` refuses is sent but
   * not kept: the key is claimed with its status alone, and a retry learns that (`not-kept`, with
   * the reason) without acting.
   */
  abstract answerOnce(
    accountId: string,
    key: string,
    requestDigest: string,
    produce: () => Promise<StoredResponse>,
    keeping: KeepingRule,
  ): Promise<KeyedAnswer>;

  /**
   * What the account's `key`, kept and not expired, answers a request that digests to
   * `requestDigest`, read only (nothing acts, nothing is claimed): its kept answer replayed, or
   * `not-kept`, or `reused` for another request. Null when no answer is kept under the key.
   */
  abstract earlierAnswer(accountId: string, key: string, requestDigest: string): Promise<EarlierAnswer | null>;
}
