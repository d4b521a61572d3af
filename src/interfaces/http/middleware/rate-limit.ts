import type { Request, Response } from 'express';
import type { RateLimitPolicy } from '../../../core/domain/rate-limit';
import type { CountRequest } from '../../../core/use-cases/rate-limiting/count-request';
import { Problem } from '../problem';
import type { RequestStep } from '../request-step';

/**
 * Counts each request against `policy` for the key `keyOf` names, and answers with the
 * RateLimit-Policy and RateLimit fields of draft-ietf-httpapi-ratelimit-headers-10 (structured
 * fields: `"name";q=<quota>;w=<window>` and `"name";r=<remaining>;t=<seconds to reset>`). Over the
 * quota: 429 `rate_limited` with Retry-After, before the operation does anything.
 */
export function rateLimit(
  countRequest: CountRequest,
  policy: RateLimitPolicy,
  describe: string,
  keyOf: (req: Request, res: Response) => string,
): RequestStep {
  const policyField = `"${policy.name}";q=${policy.quota};w=${policy.windowSeconds}`;
  return async (req, res) => {
    const decision = await countRequest.execute({ key: keyOf(req, res), policy });
    res.setHeader('RateLimit-Policy', policyField);
    res.setHeader('RateLimit', `"${policy.name}";r=${decision.remaining};t=${decision.resetSeconds}`);
    if (!decision.allowed) {
      throw new Problem(
        429,
        'rate_limited',
        `Too many requests ${describe}: at most ${policy.quota} ` +
          `per ${policy.windowSeconds === 1 ? 'second' : `${policy.windowSeconds} seconds`}. ` +
          `Retry after ${decision.resetSeconds} s.`,
        {},
        { 'Retry-After': String(decision.resetSeconds) },
      );
    }
  };
}

/**
 * The per-account limit of the API, every key of the account counted together (console keys of its
 * sessions included), so that more keys do not give an account more of the service. Runs after
 * `authenticate`, which puts the principal in res.locals.
 */
export function perAccount(countRequest: CountRequest, perSecond: number): RequestStep {
  const policy = { name: 'default', quota: perSecond, windowSeconds: 1 };
  return rateLimit(
    countRequest,
    policy,
    'for this account (all its API keys together)',
    (_req, res) => `account:${String(res.locals.principal?.accountId)}`,
  );
}

/** The per-address limit of the public account endpoints (req.ip honours TRUST_PROXY). */
export function perAddress(countRequest: CountRequest, perMinute: number): RequestStep {
  const policy = { name: 'accounts', quota: perMinute, windowSeconds: 60 };
  return rateLimit(
    countRequest,
    policy,
    'from this address',
    (req) => `address:${req.ip ?? req.socket.remoteAddress ?? 'unknown'}`,
  );
}
