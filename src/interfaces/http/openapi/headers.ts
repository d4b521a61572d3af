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
      'or the service is not ready.',
    required: true,
    schema: { type: 'integer', minimum: 1 },
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

/** Every answer of the service carries its request id (middleware/request-id.ts). */
export const REQUEST_ID: Readonly<Record<string, JsonObject>> = { 'X-Request-Id': headerRef('X-Request-Id') };
