import { MAX_PATH_PARAMETER_LENGTH } from '../dtos/limits';
import { honoursIdempotencyKey, type Family, type Route } from '../route';
import { EVENT_STREAM_CONTENT, LAST_EVENT_ID_PARAMETER, STREAM_DESCRIPTION } from './event-stream';
import { exampleOf } from './examples';
import { headerRef, OPERATION_HEADERS } from './headers';
import { errorCodesOf, errorResponses } from './problems';
import { refTo, type JsonObject } from './schemas';

export const TAGS: Readonly<Record<Family, { name: string; description: string }>> = {
  accounts: { name: 'Accounts', description: 'Opening an account and getting its API key.' },
  'api-keys': {
    name: 'API keys',
    description: "The account's keys: full keys, and restricted keys holding a permission by resource.",
  },
  A: { name: 'Family A: verbs', description: 'Simple verbs, each answering with a human-readable status.' },
  B: { name: 'Family B: resources', description: 'Resources created and read.' },
  C: { name: 'Family C: scenarios', description: 'Scenario operations under /api/v1.' },
  webhooks: {
    name: 'Webhooks',
    description: "Endpoints the account's changes are pushed to, signed (Standard Webhooks).",
  },
};

const GET_PARAMETERS =
  'Parameters may be sent as a query string, a JSON body, or both (docs/decisions.md, "GET parameters").';

/** Express `/timeline/:timeline_id` as OpenAPI `/timeline/{timeline_id}`. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
}

function pathParameterNames(path: string): string[] {
  return [...path.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((match) => match[1] ?? '');
}

/** The OpenAPI operation of one route, from its definition, input classes and `docs`. */
export function operationOf(route: Route, schemas: Readonly<Record<string, JsonObject>>): JsonObject {
  const docs = route.docs;
  const operation: JsonObject = {
    operationId: route.operationId,
    summary: route.summary,
    tags: [TAGS[route.family].name],
    // OpenAPI 3.1 allows scopes on any scheme: the one permission the operation needs.
    security: route.scope === null ? [] : [{ bearerAuth: [route.scope] }],
    parameters: [
      ...pathParameters(route, docs?.example),
      ...queryParameters(route, schemas),
      ...idempotencyKeyParameter(route),
      ...(route.stream ? [LAST_EVENT_ID_PARAMETER] : []),
    ],
  };
  const description = [
    docs?.description,
    route.method === 'get' && route.query ? GET_PARAMETERS : undefined,
    route.stream ? STREAM_DESCRIPTION : undefined,
  ].filter((part) => part !== undefined);
  if (description.length > 0) operation.description = description.join('\n\n');
  if (route.body) {
    operation.requestBody = {
      required: true,
      content: {
        'application/json': {
          schema: refTo(route.body),
          ...(docs?.example ? { example: bodyExample(route, docs.example) } : {}),
        },
      },
    };
  }
  operation.responses = {
    ...(docs
      ? { [String(docs.status)]: successResponse(docs, schemas, replayable(route), Boolean(route.stream)) }
      : {}),
    ...errorResponses(errorCodesOf(route), { replayable: replayable(route), scope: route.scope }),
  };
  return operation;
}

/** A route's example less its path parameters, which it gives for the path. */
function bodyExample(route: Route, example: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const inPath = new Set(pathParameterNames(route.path));
  return Object.fromEntries(Object.entries(example).filter(([name]) => !inPath.has(name)));
}

/** An authenticated POST may answer with the kept answer of an earlier request with its `Idempotency-Key`. */
function replayable(route: Route): boolean {
  return honoursIdempotencyKey(route);
}

function successResponse(
  docs: NonNullable<Route['docs']>,
  schemas: Readonly<Record<string, JsonObject>>,
  replayed: boolean,
  streams: boolean,
): JsonObject {
  const headers = Object.entries(docs.headers ?? {}).map(([name, description]) => [
    name,
    { description, schema: { type: 'string' } },
  ]);
  const described = {
    headers: {
      ...OPERATION_HEADERS,
      ...(streams ? { 'X-Accel-Buffering': headerRef('X-Accel-Buffering') } : {}),
      ...Object.fromEntries(headers),
      ...(replayed ? { 'Idempotent-Replayed': headerRef('Idempotent-Replayed') } : {}),
    },
  };
  if (docs.response === null) return { description: 'No content', ...described };
  const schema = refTo(docs.response);
  const example = exampleOf(schema, schemas);
  return {
    description: docs.response.name.replace(/Response$/, '').replace(/([a-z])([A-Z])/g, '$1 $2'),
    ...described,
    content: {
      'application/json': { schema, ...(example === undefined ? {} : { example }) },
      ...(streams ? EVENT_STREAM_CONTENT : {}),
    },
  };
}

/** Authenticated POSTs honour `Idempotency-Key` (docs/decisions.md, "Idempotency-Key"). */
function idempotencyKeyParameter(route: Route): JsonObject[] {
  if (!replayable(route)) return [];
  return [
    {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'A key of your choice (for example a UUID) that makes a retry safe: for 24 hours, ' +
        'a request of this account with the same key, method, path and body gets the first answer again ' +
        '(with `Idempotent-Replayed: true`) instead of acting twice. ' +
        'Duplicates sent at the same time act once and all get that answer. ' +
        'The same key with another request answers `idempotency_key_reused` (422). An answer longer than ' +
        '64 KiB is not kept: a retry answers `idempotency_answer_not_kept` (409) without acting again. ' +
        "Past the account's hourly bound of keyed requests or of kept answers, a request with a new key is " +
        'refused before it acts (`idempotency_quota_exceeded`, 429, with `Retry-After`); a retry of a kept key ' +
        'still gets its answer.',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
      example: '5f0c6f4e-8a2d-4d0b-9a57-0d6f2f0f7a11',
    },
  ];
}

function pathParameters(route: Route, example: Readonly<Record<string, unknown>> | undefined): JsonObject[] {
  return pathParameterNames(route.path).map((name) => ({
    name,
    in: 'path',
    required: true,
    // As express-routes.ts reads it: a NUL or more than the bound is refused (validation_failed).
    schema: { type: 'string', minLength: 1, maxLength: MAX_PATH_PARAMETER_LENGTH, pattern: '^[^\\u0000]+$' },
    ...(example?.[name] === undefined ? {} : { example: example[name] }),
  }));
}

function queryParameters(route: Route, schemas: Readonly<Record<string, JsonObject>>): JsonObject[] {
  if (route.method !== 'get' || !route.query) return [];
  const schema = schemas[route.query.name] ?? {};
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required : [];
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: 'query',
    required: required.includes(name),
    schema: property,
    ...(route.docs?.example?.[name] === undefined ? {} : { example: route.docs.example[name] }),
  }));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
