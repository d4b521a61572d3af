// The words of a request's admission that a worker and its primary exchange (messages.ts): what a
// request costs, how long it waited, why it was refused. Here, below both the HTTP layer that
// admits requests and the metrics that share the cluster's channel, so neither reaches the other.

/** What a request waited for before it ran, in milliseconds. */
export interface Waited {
  /** Behind its account's requests in flight (ACCOUNT_REQUESTS_RUNNING). */
  readonly queuedMs: number;
  /** For its account's pace (RATE_LIMIT_PER_SECOND spread over the second). */
  readonly pacedMs: number;
  /** For the instance's work at once, by account in turn (INSTANCE_WORK_RUNNING). */
  readonly busyMs: number;
}

/** Why a request is refused: its account's queue is full (429), or the instance's (503). */
export type Refusal = 'in_flight' | 'busy';

/** What a request costs: against its account's rate limit (its pace), and the instance's work. */
export interface RequestCost {
  /** Requests it counts as against its account's rate limit (a page by its size). */
  readonly cost: number;
  /** Its weight in the instance's fair share (request-weights.ts). */
  readonly weight: number;
}
