import type { Response } from 'express';
import type { Principal } from '../../core/use-cases/accounts/authenticate-api-key';
import type { TraceLogFields } from '../../trace-log-fields';

/**
 * What the steps of one request tell each other and the answer's listeners (the request log, the
 * metrics), kept in Express's `res.locals`. Express types `res.locals` as any record, so every step
 * reaches it through `localsOf`, which names each field once with its type.
 */
export interface AnswerLocals {
  /** The request's id (request-id.ts): its X-Request-Id, and `request_id` in its problems and log line. */
  requestId?: string;
  /** The account and key the request authenticated as (authenticate.ts). */
  principal?: Principal;
  /** The request's trace (trace-request.ts), when tracing is on: for its log line. */
  traceIds?: TraceLogFields;
  /** Which problem was answered (a 429 may be any of several limits), kept answers included. */
  problemCode?: string;
  /** The permission the request's key lacked (permission.ts), as its scope: `anchors:write`. */
  permissionRefused?: string;
  /** The rate limit that refused the request, by its policy's name (`anonymous`, `accounts`, ...). */
  limitRefused?: string;
  /**
   * The account endpoints' per-address limit counted the request (address-limits.ts): the anonymous
   * allowance does not count it again.
   */
  countedByAddress?: boolean;
  /** Answered by the HTTP server itself, with this status (client-errors.ts), not by the app. */
  refusedStatus?: number;
  /** Why the request failed, when the service can say it in a line (the database was unavailable). */
  failureReason?: string;
  /** The answer is the one kept for an earlier request with its Idempotency-Key, sent again. */
  replayed?: boolean;
  /** The answer is an event stream, whose end is not an abort. */
  eventStream?: boolean;
  /**
   * Milliseconds the operation waited for its turn: behind its account's requests in flight, then
   * for its account's pace (admission/).
   */
  turnWaitMs?: number;
  /** Times an event stream's catch-up waited for its account's rate limit (catch-up-pacing.ts). */
  catchUpWaits?: number;
  /** Milliseconds the request's password work (hashing, the strength check) waited for a thread of its pool. */
  passwordWaitMs?: number;
}

/** The request's locals, typed. */
export function localsOf(res: Pick<Response, 'locals'>): AnswerLocals {
  return res.locals as AnswerLocals;
}
