import type { Scope } from '../../../core/domain/api-key-permissions';
import { InsufficientPermissions } from '../../../core/domain/errors';
import { EXAMPLE_IDS } from '../dtos/responses/ids';
import { STATUS_BY_CODE, TITLE_BY_STATUS } from '../error-statuses';
import { Problem } from '../problem';
import { honoursIdempotencyKey, type Route } from '../route';
import { headerRef, OPERATION_HEADERS, REPLAYABLE_STATUSES } from './headers';
import type { JsonObject } from './schemas';

/**
 * Codes any operation can answer: its request is read (client-errors.ts: unreadable, too slow,
 * headers too large) and its input parsed and validated, it is rate limited (per account, or per
 * address for sign-up), it reaches the database, which may be away or give up on its statement, and
 * the service can fail.
 */
const EVERY_OPERATION = [
  'malformed_request',
  'request_timeout',
  'headers_too_large',
  'malformed_json',
  'validation_failed',
  'payload_too_large',
  'unsupported_media_type',
  'rate_limited',
  'internal_error',
  'service_unavailable',
  'operation_timed_out',
];
/**
 * A key names the account, whose requests in flight are bounded, as is the instance's work at once
 * (admission/); a client address presenting failing keys is refused for a while (authenticate-api-key.ts);
 * a restricted key may lack the operation's permission (permission.ts).
 */
const WITH_A_KEY = [
  'missing_api_key',
  'invalid_api_key',
  'insufficient_permissions',
  'too_many_failed_attempts',
  'too_many_requests_in_flight',
  'server_busy',
];
/** An authenticated POST honours `Idempotency-Key` (middleware/idempotency.ts), within hourly bounds. */
const IDEMPOTENT = ['idempotency_key_reused', 'idempotency_answer_not_kept', 'idempotency_quota_exceeded'];

const TOO_MANY_HEADERS: JsonObject = {
  'Retry-After': {
    description:
      'Seconds to wait: until the window ends (`rate_limited`, `too_many_failed_attempts`, ' +
      '`idempotency_quota_exceeded`: the hour), ' +
      '1 (`too_many_requests_in_flight`), or 5 (`too_many_streams`).',
    required: true,
    schema: { type: 'integer', minimum: 1 },
  },
};

export const PROBLEM_SCHEMA = { $ref: '#/components/schemas/ProblemResponse' };

const EXAMPLE_REQUEST_ID = '3f1c2a9e-7b4d-4e8a-9c61-2d5f0b8e4a17';

/** How an operation's error answers are told apart from another's. */
export interface ErrorAnswers {
  /** Whether an answer may be the replay of one kept under an `Idempotency-Key`. */
  readonly replayable?: boolean;
  /** The permission the operation needs, which its 403 names; null for an operation open to anyone. */
  readonly scope?: Scope | null;
}

/** Every error code a route can answer, each known to error-statuses.ts. */
export function errorCodesOf(route: Route): string[] {
  const idempotent = honoursIdempotencyKey(route);
  const codes = [
    ...EVERY_OPERATION,
    ...(route.scope !== null ? WITH_A_KEY : []),
    ...(idempotent ? IDEMPOTENT : []),
    ...(route.docs?.errors ?? []),
  ];
  return [...new Set(codes)];
}

/** The error responses of an operation, one per status, with an example problem per code. */
export function errorResponses(
  codes: readonly string[],
  { replayable = false, scope = null }: ErrorAnswers = {},
): Record<string, JsonObject> {
  const byStatus = new Map<number, string[]>();
  for (const code of codes) {
    const status = STATUS_BY_CODE[code];
    if (status === undefined) throw new Error(`error code ${code} is not in error-statuses.ts`);
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus]
      .sort(([a], [b]) => a - b)
      .map(([status, statusCodes]) => [
        String(status),
        errorResponse(status, statusCodes, replayable && REPLAYABLE_STATUSES.has(status), scope),
      ]),
  );
}

/** The headers of an error answer beyond its request id, by status. */
function headersOf(status: number): JsonObject {
  if (status === 401)
    return {
      'WWW-Authenticate': { description: 'Bearer challenge (RFC 6750).', required: true, schema: { type: 'string' } },
    };
  if (status === 403)
    return {
      'WWW-Authenticate': {
        description:
          'Bearer challenge (RFC 6750) naming the permission the key lacks: ' +
          '`Bearer realm="time-navigation", error="insufficient_scope", scope="anchors:write"`.',
        required: true,
        schema: { type: 'string' },
      },
    };
  if (status === 429) return TOO_MANY_HEADERS;
  if (status === 503) return { 'Retry-After': headerRef('Retry-After-Unavailable') };
  return {};
}

function errorResponse(status: number, codes: readonly string[], replayable: boolean, scope: Scope | null): JsonObject {
  const title = TITLE_BY_STATUS[status] ?? 'Request failed';
  return {
    description: `${title}: ${codes.map((code) => `\`${code}\``).join(', ')} (docs/errors.md).`,
    headers: {
      ...OPERATION_HEADERS,
      ...headersOf(status),
      ...(replayable ? { 'Idempotent-Replayed': headerRef('Idempotent-Replayed') } : {}),
    },
    content: {
      'application/problem+json': {
        schema: problemSchema(codes, scope),
        examples: Object.fromEntries(
          codes.map((code) => [code, { summary: code, value: exampleProblem(status, title, code, scope) }]),
        ),
      },
    },
  };
}

/**
 * A refusal for want of a permission always names it and the key (middleware/permission.ts): where
 * it is the status's one code, its schema requires both, the permission being the operation's scope.
 */
function problemSchema(codes: readonly string[], scope: Scope | null): JsonObject {
  if (codes.length !== 1 || codes[0] !== 'insufficient_permissions') return PROBLEM_SCHEMA;
  return {
    allOf: [
      PROBLEM_SCHEMA,
      { required: ['required_permission', 'key_id'], properties: { required_permission: { const: scopeOf(scope) } } },
    ],
  };
}

function exampleProblem(status: number, title: string, code: string, scope: Scope | null): JsonObject {
  // The refusal as the service sends it, from the error it is sent for.
  if (code === 'insufficient_permissions') {
    const refusal = Problem.fromDomain(new InsufficientPermissions(scopeOf(scope), EXAMPLE_IDS.apiKey));
    return { ...refusal.toJson(), request_id: EXAMPLE_REQUEST_ID };
  }
  const errors =
    code === 'validation_failed'
      ? { errors: [{ field: 'destination_time', message: 'destination_time must be an ISO 8601 date-time' }] }
      : {};
  const detail = `A sentence for people explaining ${code.replaceAll('_', ' ')}.`;
  return {
    type: `/problems/${code}`,
    title,
    status,
    detail,
    code,
    ...errors,
    request_id: EXAMPLE_REQUEST_ID,
  };
}

/** Only an operation needing a key is refused for a permission: it names the one it needs. */
function scopeOf(scope: Scope | null): Scope {
  if (scope === null) throw new Error('insufficient_permissions is listed for an operation open to anyone');
  return scope;
}
