import { createHash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { IdempotencyStore, StoredResponse } from '../../../core/ports/idempotency-store';
import type { Principal } from '../../../core/use-cases/accounts/authenticate-api-key';
import { Problem } from '../problem';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
const VALID_KEY = /^[\x20-\x7E]{1,255}$/;
/** Headers that belong to the answer itself (not to this delivery of it), replayed with it. */
const KEPT_HEADERS = ['content-type', 'location'];

/**
 * `Idempotency-Key` on an authenticated POST (Stripe's semantics, docs/decisions.md): the first
 * answer is kept and replayed to a retry with the same key and request, which then does not act.
 * Mounted after authentication (keys are per account) and body parsing (the body is part of the
 * request compared), before validation, so a refused request is replayed as refused.
 */
export function idempotency(store: IdempotencyStore, logError: (error: unknown) => void): RequestHandler {
  return async (req, res, next) => {
    const key = req.get(IDEMPOTENCY_HEADER);
    if (key === undefined) return next();
    if (!VALID_KEY.test(key)) {
      throw Problem.validation([{ field: IDEMPOTENCY_HEADER, message: 'must be 1 to 255 printable ASCII characters' }]);
    }
    const principal: Principal | undefined = res.locals.principal;
    // Mounted only behind authentication; without an account there is nothing to key on.
    if (!principal) return next();
    const { accountId } = principal;
    const reservation = await store.reserve(accountId, key, requestDigest(req));
    switch (reservation.outcome) {
      case 'reused':
        throw new Problem(422, 'idempotency_key_reused', `This ${IDEMPOTENCY_HEADER} was used with a different request; use a new key for a new request.`);
      case 'in_progress':
        throw new Problem(409, 'idempotency_key_in_use', `A request with this ${IDEMPOTENCY_HEADER} is still being answered; retry shortly.`, {}, {
          'Retry-After': '1',
        });
      case 'replay':
        replay(res, reservation.response);
        return undefined;
      case 'reserved':
        keepAnswer(res, (answer) => (isKept(answer.status) ? store.complete(accountId, key, answer) : store.release(accountId, key)), logError);
        return next();
    }
  };
}

/** Method, path and body: the same key with any other request is refused. */
function requestDigest(req: Request): string {
  return createHash('sha256')
    .update(`${req.method} ${req.originalUrl}\n${JSON.stringify(req.body ?? null)}`)
    .digest('hex');
}

/**
 * Answers that depend only on the request are kept (successes, refusals of the input or the state);
 * a failure of the service (5xx) or a rate limit (429) is not: the retry acts.
 */
function isKept(status: number): boolean {
  return status < 500 && status !== 429;
}

function replay(res: Response, answer: StoredResponse): void {
  res.status(answer.status).set(answer.headers).set(REPLAYED_HEADER, 'true').json(answer.body);
}

/**
 * Stores the JSON answer before it is sent, so a retry that follows the answer finds it. Every
 * answer of a route or of the problem handler goes through `res.json`. A failure to store is logged
 * and the answer still sent: the request did act.
 */
function keepAnswer(res: Response, store: (answer: StoredResponse) => Promise<void>, logError: (error: unknown) => void): void {
  const send = res.json.bind(res);
  let stored = false;
  res.json = (body: unknown) => {
    if (stored) return send(body);
    stored = true;
    const headers = Object.fromEntries(
      KEPT_HEADERS.flatMap((name) => {
        const value = res.get(name);
        return value === undefined ? [] : [[name, value]];
      }),
    );
    const contentType = headers['content-type'] ?? 'application/json; charset=utf-8';
    store({ status: res.statusCode, body, headers: { ...headers, 'content-type': contentType } })
      .catch(logError)
      .finally(() => send(body));
    return res;
  };
}
