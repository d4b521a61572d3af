import type { ClassConstructor } from 'class-transformer';
import { ProblemResponse } from '../dtos/responses/problem.response';
import { RESOURCES } from '../../../core/domain/api-key-permissions';
import type { Route } from '../route';
import { SHARED_HEADERS } from './headers';
import { openApiPath, operationOf, TAGS } from './operation';
import { PROBE_RESPONSES, PROBES_TAG, probePaths } from './probes';
import { refsIn, schemasOf, type JsonObject } from './schemas';
import { WEBHOOK_PAYLOADS, webhookOperations } from './webhooks';

/**
 * The OpenAPI 3.1 document of the route table the service runs: paths from the routes, schemas
 * from their request and response classes, errors from error-statuses.ts, the messages endpoints
 * receive from the payload classes (webhooks.ts). Nothing is kept by hand.
 */
export function buildOpenApiDocument(routes: readonly Route[]): JsonObject {
  const classes = routes.flatMap((route) => [route.body, route.query, route.docs?.response]);
  const schemas = schemasOf([
    ProblemResponse,
    ...PROBE_RESPONSES,
    ...WEBHOOK_PAYLOADS,
    ...classes.filter((dto): dto is ClassConstructor<object> => dto !== undefined && dto !== null),
  ]);
  const paths: Record<string, Record<string, JsonObject>> = {};
  for (const route of routes) {
    const path = openApiPath(route.path);
    const operation = operationOf(route, schemas);
    paths[path] = { ...paths[path], [route.method]: operation };
    // Express answers HEAD with the GET's handler; a GET that registers something refuses it (405).
    if (route.method === 'get' && !route.changesState) paths[path] = { ...paths[path], head: headOf(operation) };
  }
  Object.assign(paths, probePaths(schemas));
  const webhooks = webhookOperations(schemas);
  const families = new Set<string>(routes.map((route) => route.family));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Time Navigation Service',
      version: '1',
      description:
        'Travel to moments and timelines, set anchors, carry items home and check for paradoxes. Three families of ' +
        'operations share one state per account. Every failure is an RFC 9457 problem with a stable `code`.\n\n' +
        'Beyond the operations listed: a path that exists answers another method with `405 method_not_allowed` ' +
        'and an `Allow` header naming its methods (and a `Link` to the operation of the other family when there ' +
        'is one); a path that does not exist answers `404 route_not_found`. Every GET answers HEAD alike, without ' +
        'its body, but a GET that registers something (`HEAD` is refused there with 405).',
      // As package.json's UNLICENSED: no one is granted a licence (SPDX has no id for that, hence a LicenseRef).
      license: { name: 'Proprietary: all rights reserved', identifier: 'LicenseRef-Proprietary' },
      contact: { name: 'Time Navigation Service team' },
    },
    servers: [{ url: '/' }],
    tags: [
      ...Object.entries(TAGS)
        .filter(([family]) => families.has(family))
        .map(([, tag]) => tag),
      PROBES_TAG,
    ],
    security: [{ bearerAuth: [] }],
    paths,
    webhooks,
    components: {
      schemas: usedSchemas({ paths, webhooks }, schemas),
      headers: SHARED_HEADERS,
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: BEARER_DESCRIPTION,
        },
      },
    },
  };
}

/** What a key is and which permissions an operation's scope names (docs/api.md, "Permissions"). */
const BEARER_DESCRIPTION =
  'An API key from POST /v1/accounts, POST /v1/api-keys or the account dashboard: ' +
  '`Authorization: Bearer tns_...` for a full key, `tnr_...` for a restricted one. ' +
  'A full key may do everything its account may. A restricted key holds a level of each resource, `none`, `read` ' +
  `or \`write\` (write includes read), over ${RESOURCES.map((resource) => `\`${resource}\``).join(', ')}. ` +
  'Each operation names as its scope the one permission it needs (`anchors:write`); a key without it is ' +
  'answered `403 insufficient_permissions`. `api_keys:manage` (managing keys) belongs to full keys alone.';

/** A GET's HEAD: the same parameters and answers, without their bodies. */
function headOf(get: JsonObject): JsonObject {
  const responses = Object.entries(get.responses as Record<string, JsonObject>).map(([status, response]) => [
    status,
    { description: response.description, headers: response.headers },
  ]);
  return {
    ...get,
    operationId: `${String(get.operationId)}Head`,
    summary: `${String(get.summary)} (headers only)`,
    description: 'As the GET, without the body of its answer.',
    responses: Object.fromEntries(responses),
  };
}

/**
 * The schemas the paths and webhooks refer to, at any depth: a GET's query class is spelled out as
 * parameters, not referred to.
 */
function usedSchemas(paths: JsonObject, schemas: Readonly<Record<string, JsonObject>>): Record<string, JsonObject> {
  const used = new Set<string>();
  const visit = (name: string): void => {
    if (used.has(name)) return;
    used.add(name);
    refsIn(schemas[name]).forEach(visit);
  };
  refsIn(paths).forEach(visit);
  return Object.fromEntries(Object.entries(schemas).filter(([name]) => used.has(name)));
}
