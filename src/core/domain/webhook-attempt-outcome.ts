import { type AttemptResult, isDelivered } from './webhook-attempt';

/**
 * The Standard Webhooks schedule: the waits before each retry, in seconds, after a first attempt
 * made at once; ten attempts over some 3 days and 5 hours.
 */
export const DEFAULT_RETRY_SCHEDULE_SECONDS: readonly number[] = [
  5, 300, 1_800, 7_200, 18_000, 36_000, 50_400, 72_000, 86_400,
];

/** Up to a tenth added to each wait, so that the messages that failed together do not all come back at once. */
export const RETRY_JITTER = 0.1;

/** An endpoint whose every attempt has failed this long is disabled: it has stopped taking its messages. */
export const FAILING_ENDPOINT_DISABLED_AFTER_MS = 5 * 24 * 60 * 60 * 1000;

/** Statuses whose Retry-After is honoured, as the specification says: the receiver asks for room. */
const ASKS_FOR_ROOM = new Set([429, 503]);
const GONE = 410;

export const ATTEMPT_OUTCOMES = ['delivered', 'retry', 'failed', 'gone', 'failing'] as const;
export type AttemptOutcomeKind = (typeof ATTEMPT_OUTCOMES)[number];

/**
 * What follows an attempt, as the message's and the endpoint's rows take it: `failingSince` is the
 * endpoint's new failing_since, `disable` its disabled_reason when it is disabled now.
 */
export type AttemptOutcome =
  | { readonly kind: 'delivered'; readonly message: 'delivered'; readonly failingSince: null; readonly disable: null }
  | {
      readonly kind: 'retry';
      readonly message: 'pending';
      readonly nextAttemptAt: Date;
      readonly failingSince: Date;
      readonly disable: null;
    }
  /** The last attempt failed: the message has failed, the endpoint stays as it is. */
  | { readonly kind: 'failed'; readonly message: 'failed'; readonly failingSince: Date; readonly disable: null }
  /** 410: the receiver says the endpoint is no more; disabled at once, no retry. */
  | { readonly kind: 'gone'; readonly message: 'failed'; readonly failingSince: Date; readonly disable: 'gone' }
  /** Every attempt has failed for 5 days: disabled; its message is not tried again. */
  | { readonly kind: 'failing'; readonly message: 'failed'; readonly failingSince: Date; readonly disable: 'failing' };

export interface FinishedAttempt {
  readonly result: AttemptResult;
  /** 1 for the first attempt, which the schedule does not count. */
  readonly attempt: number;
  /** The waits before each retry, in seconds: `scheduleSeconds.length + 1` attempts in all. */
  readonly scheduleSeconds: readonly number[];
  /** Set by a resend: a failure of this attempt, or a later one, fails the message (a resend is one attempt). */
  readonly lastAttempt?: number | null;
  /** The endpoint's failing_since before this attempt. */
  readonly failingSince: Date | null;
  /** The service's clock, once the attempt has ended. */
  readonly now: Date;
  /** A number from 0 to under 1 for the jitter (Math.random in the service). */
  readonly random: () => number;
}

export function attemptOutcome(finished: FinishedAttempt): AttemptOutcome {
  const { result, attempt, scheduleSeconds, now } = finished;
  if (!Number.isInteger(attempt) || attempt < 1) throw new RangeError(`an attempt counts from 1, not ${attempt}`);
  if (isDelivered(result)) return { kind: 'delivered', message: 'delivered', failingSince: null, disable: null };

  const failingSince = finished.failingSince ?? now;
  if (result.status === GONE) return { kind: 'gone', message: 'failed', failingSince, disable: 'gone' };
  if (now.getTime() - failingSince.getTime() >= FAILING_ENDPOINT_DISABLED_AFTER_MS)
    return { kind: 'failing', message: 'failed', failingSince, disable: 'failing' };
  const last = Math.min(scheduleSeconds.length + 1, finished.lastAttempt ?? Infinity);
  if (attempt >= last) return { kind: 'failed', message: 'failed', failingSince, disable: null };

  const waitMs = retryWaitMs(result, scheduleSeconds, scheduleSeconds[attempt - 1], finished.random);
  return {
    kind: 'retry',
    message: 'pending',
    nextAttemptAt: new Date(now.getTime() + waitMs),
    failingSince,
    disable: null,
  };
}

/**
 * The scheduled wait with its jitter, or the receiver's Retry-After when that is longer: capped at
 * the schedule's longest step, so that a receiver cannot park a message for a year.
 */
function retryWaitMs(
  result: AttemptResult,
  scheduleSeconds: readonly number[],
  scheduled: number,
  random: () => number,
): number {
  const jittered = scheduled * 1000 * (1 + RETRY_JITTER * random());
  const asked = result.status !== null && ASKS_FOR_ROOM.has(result.status) ? result.retryAfterSeconds : null;
  if (asked === null) return Math.round(jittered);
  const bounded = Math.min(asked, Math.max(...scheduleSeconds)) * 1000;
  return Math.round(Math.max(jittered, bounded));
}
