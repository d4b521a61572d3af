import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import {
  IdempotencyClaimLost,
  type IdempotencyStore,
  type StoredResponse,
} from '../../../core/ports/idempotency-store';
import type { Principal } from '../../../core/use-cases/accounts/authenticate-api-key';
import { Problem } from '../problem';
import type { HttpResponse } from '../route';
import { problemAnswer, toProblem } from './problem-handler';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
const VALID_KEY = /^[\x20-\x7E]{1,255}$/;
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** How a route's answer is produced; it throws for a failure the problem handler answers. */
export type Respond = () => Promise<HttpResponse>;

/** Answers an authenticated POST, honouring its `Idempotency-Key`. */
export type IdempotentResponder = (req: Request, res: Response, respond: Respond) => Promise<HttpResponse>;

/**
 * `Idempotency-Key` on an authenticated POST (Stripe's semantics, docs/decisions.md): the first
 * answer is kept, in the same transaction as the request's writes, and replayed to a retry with the
 * same key and request, which then does not act. Runs after authentication (keys are per account)
 * and body parsing (the body is part of the request compared), before validation, so a refused
 * request is replayed as refused.
 */
export function idempotency(store: IdempotencyStore, logError: (error: unknown) => void): IdempotentResponder {
  return async (req, res, respond) => {
    const key = req.get(IDEMPOTENCY_HEADER);
    if (key === undefined) return respond();
    if (!VALID_KEY.test(key)) {
      throw Problem.validation([{ field: IDEMPOTENCY_HEADER, message: 'must be 1 to 255 printable ASCII characters' }]);
    }
    const principal: Principal | undefined = res.locals.principal;
    // Mounted only behind authentication; without an account there is nothing to key on.
    if (!principal) return respond();
    const { accountId } = principal;
    const reservation = await store.reserve(accountId, key, requestDigest(req));
    switch (reservation.outcome) {
      case 'reused':
        throw new Problem(
          422,
          'idempotency_key_reused',
          `This ${IDEMPOTENCY_HEADER} was used with a different request; use a new key for a new request.`,
        );
      case 'in_progress':
        throw new Problem(
          409,
          'idempotency_key_in_use',
          `A request with this ${IDEMPOTENCY_HEADER} has not been answered yet. A retry gets its answer once it is ` +
            'kept; if its process stopped, the key is free for a retry after Retry-After seconds.',
          {},
          // The time left until the claim may be taken over, in whole seconds rounded up.
          { 'Retry-After': String(Math.max(1, Math.ceil(reservation.retryAfterMs / 1000))) },
        );
      case 'replay':
        return { ...reservation.response, headers: { ...reservation.response.headers, [REPLAYED_HEADER]: 'true' } };
      case 'reserved':
        try {
          return await store.answerOnce(reservation.claim, () => keptAnswer(respond, res.locals.requestId));
        } catch (error) {
          // Nothing was written (answerOnce rolled it back): a retry must act. Should the key stay
          // claimed, a retry takes it over once the claim counts as abandoned. A lost claim is
          // another request's now: releasing it would let a third act beside that one.
          if (!(error instanceof IdempotencyClaimLost)) await store.release(reservation.claim).catch(logError);
          throw error;
        }
    }
  };
}

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
