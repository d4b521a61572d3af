import type { RequestCounter } from '../../../core/use-cases/rate-limiting/request-counter';
import { clientOf, networkOf } from '../client-address';
import type { RequestStep } from '../request-step';
import { localsOf } from '../answer-locals';
import { rateLimit, rateLimits } from './rate-limit';

/**
 * Requests without a key one address may send a minute (RATE_LIMIT_ANONYMOUS_PER_MINUTE): ten a
 * second on average, where a health checker sends one every few seconds and a browser a dozen for a
 * page of the docs console (docs/decisions.md, "Rate limits").
 */
export const DEFAULT_ANONYMOUS_PER_MINUTE = 600;

/**
 * How many addresses' worth of account requests one network (an IPv4 /24, an IPv6 /48) may send a
 * minute: five, so that five addresses of one network at their limit fill its bound, and one network
 * at its bound takes at most a twelfth of the password checks two cores make (docs/decisions.md,
 * "Rate limits").
 */
export const ADDRESSES_PER_NETWORK = 5;

/**
 * The per-address limit of the public account endpoints and the password change, each of which
 * costs a password check (req.ip honours TRUST_PROXY; an IPv6 client counted by its /64, as clientOf
 * says), with the wider bound of the address's network. It marks the requests it counts, so the
 * anonymous allowance does not count them again.
 */
export function perAddressAccounts(countRequest: RequestCounter, perMinute: number): RequestStep {
  const counted = rateLimits(countRequest, [
    {
      policy: { name: 'accounts', quota: perMinute, windowSeconds: 60 },
      describe: 'from this address',
      keyOf: (req) => `address:${clientOf(req.ip)}`,
    },
    {
      policy: { name: 'accounts-network', quota: perMinute * ADDRESSES_PER_NETWORK, windowSeconds: 60 },
      describe: 'from this network (an IPv4 /24, an IPv6 /48)',
      keyOf: (req) => `network:${networkOf(req.ip)}`,
    },
  ]);
  return (req, res) => {
    localsOf(res).countedByAddress = true;
    return counted(req, res);
  };
}

/**
 * The per-address limit of requests that carry no API key an operation checks: health checks, the
 * OpenAPI document, the docs console's and the dashboard's pages, paths that are no operation, and
 * API operations without a key or with a malformed one. Counted in this process's memory
 * (`perMinute` is its share), never in the database, which must not pay for them and may be away
 * while health checks still answer. A key of the right form is counted elsewhere: a valid one by
 * its account's limit, any other by API_KEY_FAILURES_PER_MINUTE. The account endpoints' own limit
 * counts its requests instead, where it is on.
 */
export function perAddressAnonymous(counter: RequestCounter, perMinute: number): RequestStep {
  const counted = rateLimit(counter, {
    policy: { name: 'anonymous', quota: perMinute, windowSeconds: 60 },
    describe: 'without an API key from this address',
    keyOf: (req) => clientOf(req.ip),
  });
  return (req, res) => (localsOf(res).countedByAddress === true ? undefined : counted(req, res));
}
