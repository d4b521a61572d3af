import type { Request, Response } from 'express';
import type { RateLimitDecision, RateLimitPolicy } from '../../../core/domain/rate-limit';
import type { CountRequest } from '../../../core/use-cases/rate-limiting/count-request';
import { clientOf } from '../client-address';
import { Problem } from '../problem';
import type { RequestStep } from '../request-step';
import { localsOf } from '../answer-locals';

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
  costOf: (req: Request) => number = () => 1,
): RequestStep {
  const policyField = `"${policy.name}";q=${policy.quota};w=${policy.windowSeconds}`;
  return async (req, res) => {
    const cost = costOf(req);
    if (cost === 0) return;
    const decision = await countRequest.execute({ key: keyOf(req, res), policy, cost });
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
  return rateLimit(countRequest, accountPolicy(perSecond), ACCOUNT_LIMIT, accountKey);
}

/** Items of a page counted as one request (the default page of events). */
export const ITEMS_PER_REQUEST = 100;
/** The largest page any operation serves: a larger `limit` is refused by validation, and costs no more here. */
const LARGEST_PAGE = 500;

/**
 * The rest of a page's cost, once its body is parsed: a request asking for a page (`limit`, in the
 * query or the body) counts as one request per ITEMS_PER_REQUEST items asked for, rounded up, of
 * which `perAccount` counted the first. So the limit bounds what an account reads a second, not only
 * how often it asks (docs/decisions.md, "Rate limits").
 */
export function perAccountPages(countRequest: CountRequest, perSecond: number): RequestStep {
  // At most the whole quota: with a small RATE_LIMIT_PER_SECOND the largest page is still possible.
  const costOf = (req: Request) => Math.min(pagesAsked(req), perSecond) - 1;
  return rateLimit(countRequest, accountPolicy(perSecond), ACCOUNT_LIMIT, accountKey, costOf);
}

/** Requests a page of `limit` items counts as: 1 without a limit, or for one that validation refuses. */
export function pagesAsked(req: Request): number {
  const asked: unknown = (req.body as { limit?: unknown } | undefined)?.limit ?? req.query.limit;
  const limit = typeof asked === 'string' && /^\d{1,4}$/.test(asked) ? Number(asked) : asked;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1) return 1;
  return Math.ceil(Math.min(limit, LARGEST_PAGE) / ITEMS_PER_REQUEST);
}

/**
 * The per-account limit, charged outside a request's steps: an event stream's catch-up pays for its
 * events as it sends them (catch-up-pacing.ts).
 */
export interface AccountLimit {
  /** Requests an account may make a second. */
  readonly quota: number;
  charge(accountId: string, cost: number): Promise<RateLimitDecision>;
}

export function accountLimit(countRequest: CountRequest, perSecond: number): AccountLimit {
  const policy = accountPolicy(perSecond);
  return {
    quota: perSecond,
    charge: (accountId, cost) => countRequest.execute({ key: accountKeyOf(accountId), policy, cost }),
  };
}

const ACCOUNT_LIMIT = 'for this account (all its API keys together; a page counts one per 100 items asked for)';
const accountKeyOf = (accountId: string) => `account:${accountId}`;
const accountKey = (_req: Request, res: Response) => accountKeyOf(String(localsOf(res).principal?.accountId));
const accountPolicy = (perSecond: number) => ({ name: 'default', quota: perSecond, windowSeconds: 1 });

/**
 * The per-address limit of the public account endpoints and the password change (req.ip honours
 * TRUST_PROXY; an IPv6 client counted by its /64, as clientOf says).
 */
export function perAddress(countRequest: CountRequest, perMinute: number): RequestStep {
  const policy = { name: 'accounts', quota: perMinute, windowSeconds: 60 };
  return rateLimit(countRequest, policy, 'from this address', (req) => `address:${clientOf(req.ip)}`);
}
