import type { ClassConstructor } from 'class-transformer';
import { ProblemResponse } from '../dtos/responses/problem.response';
import type { Route } from '../route';
import { SHARED_HEADERS } from './headers';
import { openApiPath, operationOf, TAGS } from './operation';
import { PROBE_RESPONSES, PROBES_TAG, probePaths } from './probes';
import { refsIn, schemasOf, type JsonObject } from './schemas';

/**
 * The OpenAPI 3.1 document of the route table the service runs: paths from the routes, schemas
 * from their request and response classes, errors from error-statuses.ts. Nothing is kept by hand.
 */
export function buildOpenApiDocument(routes: readonly Route[]): JsonObject {
  const classes = routes.flatMap((route) => [route.body, route.query, route.docs?.response]);
  const schemas = schemasOf([
    ProblemResponse,
    ...PROBE_RESPONSES,
    ...classes.filter((dto): dto is ClassConstructor<object> => dto !== undefined),
  ]);
  const paths: Record<string, Record<string, JsonObject>> = {};
  for (const route of routes) {
    const path = openApiPath(route.path);
    paths[path] = { ...paths[path], [route.method]: operationOf(route, schemas) };
  }
  Object.assign(paths, probePaths(schemas));
  const families = new Set<string>(routes.map((route) => route.family));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Time Navigation Service',
      version: '1',
      description:
        'Travel to moments and timelines, set anchors, carry items home and check for paradoxes. Three families of ' +
        'operations share one state per account. Every failure is an RFC 9457 problem with a stable `code`.',
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
    components: {
      schemas: usedSchemas(paths, schemas),
      headers: SHARED_HEADERS,
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key from POST /v1/accounts or the account dashboard: `Authorization: Bearer tns_...`.',
        },
      },
    },
  };
}

/** The schemas the paths refer to, at any depth: a GET's query class is spelled out as parameters, not referred to. */
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
