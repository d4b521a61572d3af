import type { Request, Response } from 'express';
import type { RateLimitDecision, RateLimitPolicy } from '../../../core/domain/rate-limit';
import type { CountRequest } from '../../../core/use-cases/rate-limiting/count-request';
import type { RequestCounter } from '../../../core/use-cases/rate-limiting/request-counter';
import { Problem } from '../problem';
import type { RequestStep } from '../request-step';
import { localsOf } from '../answer-locals';

/** A policy, and whom it counts a request against. */
export interface Limit {
  readonly policy: RateLimitPolicy;
  /** Whose requests, for the refusal's sentence: `from this address`. */
  readonly describe: string;
  readonly keyOf: (req: Request, res: Response) => string;
}

/**
 * Counts each request against `limit`, and answers with the RateLimit-Policy and RateLimit fields
 * of draft-ietf-httpapi-ratelimit-headers-10 (structured fields: `"name";q=<quota>;w=<window>` and
 * `"name";r=<remaining>;t=<seconds to reset>`). Over the quota: 429 `rate_limited` with
 * Retry-After, before the operation does anything.
 */
export function rateLimit(
  counter: RequestCounter,
  limit: Limit,
  costOf: (req: Request) => number = () => 1,
): RequestStep {
  const { policy } = limit;
  const policyField = policyItem(policy);
  return async (req, res) => {
    const cost = costOf(req);
    if (cost === 0) return;
    const decision = await counter.execute({ key: limit.keyOf(req, res), policy, cost });
    res.setHeader('RateLimit-Policy', policyField);
    res.setHeader('RateLimit', decisionItem(policy, decision));
    if (!decision.allowed) throw refusal(res, limit, decision);
  };
}

/**
 * As `rateLimit`, against several limits in turn (an address, then its network), both fields
 * listing each: a request one limit refuses is not counted against the next, so a client over its
 * own limit does not spend what its neighbours share.
 */
export function rateLimits(counter: RequestCounter, limits: readonly Limit[]): RequestStep {
  const policyField = limits.map((limit) => policyItem(limit.policy)).join(', ');
  return async (req, res) => {
    const items: string[] = [];
    res.setHeader('RateLimit-Policy', policyField);
    for (const limit of limits) {
      const decision = await counter.execute({ key: limit.keyOf(req, res), policy: limit.policy });
      items.push(decisionItem(limit.policy, decision));
      res.setHeader('RateLimit', items.join(', '));
      if (!decision.allowed) throw refusal(res, limit, decision);
    }
  };
}

const policyItem = (policy: RateLimitPolicy) => `"${policy.name}";q=${policy.quota};w=${policy.windowSeconds}`;
const decisionItem = (policy: RateLimitPolicy, decision: RateLimitDecision) =>
  `"${policy.name}";r=${decision.remaining};t=${decision.resetSeconds}`;

/** The 429 of a limit, which the request's log line and the metrics name by its policy. */
function refusal(res: Response, { policy, describe }: Limit, decision: RateLimitDecision): Problem {
  localsOf(res).limitRefused = policy.name;
  return new Problem(
    429,
    'rate_limited',
    `Too many requests ${describe}: at most ${policy.quota} ` +
      `per ${policy.windowSeconds === 1 ? 'second' : `${policy.windowSeconds} seconds`}. ` +
      `Retry after ${decision.resetSeconds} s.`,
    {},
    { 'Retry-After': String(decision.resetSeconds) },
  );
}

/**
 * The per-account limit of the API, every key of the account counted together (console keys of its
 * sessions included), so that more keys do not give an account more of the service. Runs after
 * `authenticate`, which puts the principal in res.locals.
 */
export function perAccount(countRequest: CountRequest, perSecond: number): RequestStep {
  return rateLimit(countRequest, accountLimitOf(perSecond));
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
  return rateLimit(countRequest, accountLimitOf(perSecond), costOf);
}

/** Requests a page of `limit` items counts as: 1 without a limit, or for one that validation refuses. */
export function pagesAsked(req: Pick<Request, 'body' | 'query'>): number {
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

const accountKeyOf = (accountId: string) => `account:${accountId}`;
const accountPolicy = (perSecond: number) => ({ name: 'default', quota: perSecond, windowSeconds: 1 });
const accountLimitOf = (perSecond: number): Limit => ({
  policy: accountPolicy(perSecond),
  describe: 'for this account (all its API keys together; a page counts one per 100 items asked for)',
  keyOf: (_req, res) => accountKeyOf(String(localsOf(res).principal?.accountId)),
});
