import type { JsonObject } from './schemas';

/** Response headers shared by many answers, kept once in `components.headers`. */
export const SHARED_HEADERS = {
  'X-Request-Id': {
    description:
      "This request's id: yours when you sent `X-Request-Id` as a plain token, a new UUID otherwise. " +
      'Problems repeat it as `request_id`; quote it when you report one.',
    required: true,
    schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' },
  },
  'Retry-After-Unavailable': {
    description:
      'Seconds to wait before trying again: the database could not be reached or did not answer in time, ' +
      'it stopped the request at its time bound, the service is not ready, it has more requests waiting ' +
      'than it takes (`server_busy`), or too many password checks wait (`password_checks_busy`).',
    required: true,
    schema: { type: 'integer', minimum: 1 },
  },
  'Cache-Control': {
    description:
      "Always `no-store`: answers hold an account's state, and some the secret of an API key; no cache " +
      'along the way keeps them (middleware/answer-headers.ts).',
    required: true,
    schema: { type: 'string', enum: ['no-store'] },
  },
  'X-Content-Type-Options': {
    description: 'Always `nosniff`: a browser never reads a JSON or problem body as another type.',
    required: true,
    schema: { type: 'string', enum: ['nosniff'] },
  },
  'RateLimit-Policy': {
    description:
      'On the answers a rate limit counted (every request with an API key; sign-up and sign-in, per client ' +
      'address and network; requests without a key, per client address): the quotas, e.g. `"default";q=100;w=1` ' +
      '(draft-ietf-httpapi-ratelimit-headers-10).',
    schema: { type: 'string' },
  },
  RateLimit: {
    description:
      'With `RateLimit-Policy`: what is left of each quota that counted the request, e.g. `"default";r=99;t=1`.',
    schema: { type: 'string' },
  },
  'X-Accel-Buffering': {
    description: 'With `text/event-stream` only: `no`, so that a proxy (nginx) passes each message on at once.',
    schema: { type: 'string', enum: ['no'] },
  },
  'Idempotent-Replayed': {
    description:
      '`true` when this is the answer kept for an earlier request with the same `Idempotency-Key`, ' +
      'sent again instead of acting twice.',
    schema: { type: 'string', enum: ['true'] },
  },
} satisfies Record<string, JsonObject>;

export function headerRef(name: keyof typeof SHARED_HEADERS): JsonObject {
  return { $ref: `#/components/headers/${name}` };
}

/**
 * An authenticated POST keeps its success or the refusal its work answered (middleware/idempotency.ts);
 * failures before it (key, rate limit, body parsing) and of the service are not kept.
 */
export const REPLAYABLE_STATUSES: ReadonlySet<number> = new Set([400, 404, 409, 422]);

/**
 * What every answer of the service carries: its request id (middleware/request-id.ts) and the
 * headers of middleware/answer-headers.ts.
 */
export const ANSWER_HEADERS: Readonly<Record<string, JsonObject>> = {
  'X-Request-Id': headerRef('X-Request-Id'),
  'Cache-Control': headerRef('Cache-Control'),
  'X-Content-Type-Options': headerRef('X-Content-Type-Options'),
};

/** What an answer of an operation may carry beyond those: the rate limit's fields. */
export const OPERATION_HEADERS: Readonly<Record<string, JsonObject>> = {
  ...ANSWER_HEADERS,
  'RateLimit-Policy': headerRef('RateLimit-Policy'),
  RateLimit: headerRef('RateLimit'),
};
