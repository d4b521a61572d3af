import { createHash } from 'node:crypto';
import { trace } from '@opentelemetry/api';
import type { Request, Response } from 'express';
import {
  MAX_KEPT_ANSWER_BYTES,
  type KeptResponse,
  type NotKeptReason,
  type StoredResponse,
} from '../../../core/ports/idempotency-store';
import type { Principal } from '../../../core/use-cases/accounts/authenticate-api-key';
import type { AnswerKeyedRequest, KeyedOutcome } from '../../../core/use-cases/idempotency/answer-keyed-request';
import type { KeptQuota } from '../../../core/use-cases/idempotency/kept-answers';
import { Problem } from '../problem';
import type { RequestStep } from '../request-step';
import type { HttpResponse } from '../route';
import { JSON_CONTENT_TYPE, nameProblem } from '../send-answer';
import { problemAnswer, toProblem } from './problem-handler';
import { localsOf } from '../answer-locals';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
const VALID_KEY = /^[\x20-\x7E]{1,255}$/;

/** How a route's answer is produced; it throws for a failure the problem handler answers. */
export type Respond = () => Promise<HttpResponse>;

/** Answers an authenticated POST, honouring its `Idempotency-Key`. */
export type IdempotentResponder = (
  req: Request,
  res: Response,
  respond: Respond,
) => Promise<HttpResponse | KeptResponse>;

/** What operators see of the keys (HttpMetrics): the keys honoured now, and the refusals past a bound. */
export interface IdempotencyMetrics {
  /** tns_idempotency_keys_in_use. */
  readonly keysInUse: { inc(): void; dec(): void };
  /** tns_idempotency_quota_refusals_total, by the bound that refused. */
  readonly quotaRefusals: { inc(labels: { quota: KeptQuota }): void };
}

/**
 * `Idempotency-Key` on an authenticated POST (docs/decisions.md): the first answer is kept, in the
 * same statement as the request's writes and the claim on the key, and replayed to a retry with the
 * same key and request, whose own writes are dropped. Runs after authentication (keys are per
 * account) and body parsing (the body is part of the request compared), before validation, so a
 * refused request is replayed as refused. A key counts in `keysInUse` while it is honoured: not
 * before (a key refused, or a request still arriving), nor on a request where it means nothing.
 * Past its account's hourly bound a keyed request is refused before it acts (429), unless its key
 * already holds an answer.
 */
export function idempotency(answerKeyed: AnswerKeyedRequest, metrics?: IdempotencyMetrics): IdempotentResponder {
  return async (req, res, respond) => {
    const key = req.get(IDEMPOTENCY_HEADER);
    if (key === undefined) return respond();
    if (!VALID_KEY.test(key)) {
      throw Problem.validation([{ field: IDEMPOTENCY_HEADER, message: 'must be 1 to 255 printable ASCII characters' }]);
    }
    const principal: Principal | undefined = localsOf(res).principal;
    // Mounted only behind authentication; without an account there is nothing to key on.
    if (!principal) return respond();
    metrics?.keysInUse.inc();
    let keyed: KeyedOutcome;
    try {
      keyed = await answerKeyed.execute({
        accountId: principal.accountId,
        key,
        requestDigest: requestDigest(req),
        produce: () => keptAnswer(respond, localsOf(res).requestId),
      });
    } finally {
      metrics?.keysInUse.dec();
    }
    switch (keyed.outcome) {
      case 'answered':
        return named(res, keyed.response);
      case 'replay':
        return replayed(res, keyed.response);
      case 'reused':
        throw new Problem(
          422,
          'idempotency_key_reused',
          `This ${IDEMPOTENCY_HEADER} was used with a different request; use a new key for a new request.`,
        );
      case 'not-kept':
        throw new Problem(
          409,
          'idempotency_answer_not_kept',
          `The request with this ${IDEMPOTENCY_HEADER} was done (it answered ${keyed.status}), but its answer ` +
            `${NOT_KEPT_BECAUSE[keyed.reason]} and was not kept. Read what you need again without the key, ` +
            'or with a new one.',
          { first_status: keyed.status, not_kept_because: keyed.reason },
        );
      case 'quota-exceeded':
        metrics?.quotaRefusals.inc({ quota: keyed.quota });
        trace.getActiveSpan()?.addEvent('idempotency quota exceeded', { quota: keyed.quota });
        throw new Problem(
          429,
          'idempotency_quota_exceeded',
          `${QUOTA_SPENT[keyed.quota]} for this hour: this request was not done. Send it again with the same key ` +
            'after Retry-After seconds.',
          { quota: keyed.quota },
          { 'Retry-After': String(keyed.retryAfterSeconds) },
        );
    }
  };
}

/**
 * The `Idempotency-Key` of an operation whose answer holds a secret kept nowhere else (a new API
 * key): keeping the answer would keep the secret, and ignoring the key would let a retry act twice
 * unknowingly, so the request is refused before it acts.
 */
export const refuseIdempotencyKey: RequestStep = (req) => {
  if (req.get(IDEMPOTENCY_HEADER) === undefined) return;
  throw Problem.validation([
    {
      field: IDEMPOTENCY_HEADER,
      message:
        'is not taken by this operation: its answer holds a new secret, which the service keeps nowhere. ' +
        'Send it without; if its answer is lost, revoke the key you did not receive',
    },
  ]);
};

/** Which hourly bound is spent, as the 429 says it. */
const QUOTA_SPENT: Readonly<Record<KeptQuota, string>> = {
  keys: `This account made its most requests with an ${IDEMPOTENCY_HEADER}`,
  kept_bytes: `This account's ${IDEMPOTENCY_HEADER}s kept their most answers`,
};

/** Why an answer was not kept, as the 409 says it. */
const NOT_KEPT_BECAUSE: Readonly<Record<NotKeptReason, string>> = {
  too_long: `was longer than ${MAX_KEPT_ANSWER_BYTES / 1024} KiB`,
  quota_reached: "came after this account's kept answers reached their quota for the hour",
};

/** Method, path and body: the same key with any other request is refused. */
export function requestDigest(req: Request): string {
  return createHash('sha256')
    .update(`${req.method} ${req.originalUrl}\n${JSON.stringify(req.body ?? null)}`)
    .digest('hex');
}

/**
 * The request's answer, to be kept: a success, or a refusal of the input or the state. A failure of
 * the service (5xx) is thrown instead: nothing is kept, the request's writes roll back, a retry acts.
 */
async function keptAnswer(respond: Respond, requestId: unknown): Promise<StoredResponse> {
  let answer: HttpResponse;
  try {
    answer = await respond();
  } catch (error) {
    const problem = toProblem(error);
    if (problem.status >= 500) throw error;
    answer = problemAnswer(problem, requestId);
  }
  return {
    status: answer.status,
    body: answer.body,
    headers: { 'content-type': JSON_CONTENT_TYPE, ...answer.headers },
  };
}

/**
 * A kept answer sent again, marked as such, its problem named as `named` names it (parsed once). A
 * refusal's `request_id` is this request's, as its X-Request-Id and its log line (which says it
 * replayed) are: the id a client quotes leads to the request it sent. The rest is the first
 * answer, word for word.
 */
function replayed(res: Response, answer: KeptResponse): KeptResponse {
  const locals = localsOf(res);
  locals.replayed = true;
  const headers = { ...answer.headers, [REPLAYED_HEADER]: 'true' };
  if (answer.status < 400) return { ...answer, headers };
  const problem = { ...(JSON.parse(answer.json) as Record<string, unknown>), request_id: locals.requestId };
  nameProblem(res, { status: answer.status, body: problem });
  return { ...answer, headers, json: JSON.stringify(problem) };
}

/**
 * For the request log and the metrics: the problem of the answer sent, from its JSON text (a
 * problem is short). Not from the run that produced it: a retry runs again before it finds its key
 * kept, and its own run's refusal is not what it answers.
 */
function named(res: Response, answer: KeptResponse): KeptResponse {
  if (answer.status >= 400) nameProblem(res, { status: answer.status, body: JSON.parse(answer.json) });
  return answer;
}
