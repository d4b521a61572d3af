import type { ClassConstructor } from 'class-transformer';
import { HealthResponse, NotReadyResponse, ReadyResponse } from '../dtos/responses/probes.response';
import { exampleOf } from './examples';
import { headerRef, OPERATION_HEADERS } from './headers';
import { errorResponses } from './problems';
import { refTo, type JsonObject } from './schemas';

export const PROBES_TAG = {
  name: 'Probes',
  description:
    'For a proxy or orchestrator: is the process alive, is it ready for traffic. No key needed: like every ' +
    "request without one, a probe counts against its address's allowance (RATE_LIMIT_ANONYMOUS_PER_MINUTE, " +
    '600 a minute by default), far above what a health checker sends.',
};

export const PROBE_RESPONSES: readonly ClassConstructor<object>[] = [HealthResponse, ReadyResponse, NotReadyResponse];

/** `/healthz` and `/readyz`, which app.ts answers outside the route table; the conformance tests hold them to this. */
export function probePaths(schemas: Readonly<Record<string, JsonObject>>): Record<string, Record<string, JsonObject>> {
  return {
    '/healthz': {
      get: probe(
        'health',
        'Whether the process is alive.',
        'Answers 200 while the process runs, whatever the state of the database: a failing check here means the ' +
          'process should be restarted, not waited for.',
        {
          200: json('The process is alive.', HealthResponse, schemas),
          ...TOO_MANY,
        },
      ),
    },
    '/readyz': {
      get: probe(
        'readiness',
        'Whether the service is ready for traffic.',
        'Ready means the database answers and every migration this build ships is applied. ' +
          'While it is not, the answer is 503 with the reason and `Retry-After`: a proxy stops routing to this ' +
          'process until it is ready again.',
        {
          200: json('Ready for traffic.', ReadyResponse, schemas),
          503: {
            ...json(
              'Not ready: the database does not answer, or a migration is not applied.',
              NotReadyResponse,
              schemas,
            ),
            headers: { ...OPERATION_HEADERS, 'Retry-After': headerRef('Retry-After-Unavailable') },
          },
          ...TOO_MANY,
        },
      ),
    },
  };
}

/** A probe is a request without a key: past its address's allowance, 429 (middleware/address-limits.ts). */
const TOO_MANY = errorResponses(['rate_limited']);

function probe(
  operationId: string,
  summary: string,
  description: string,
  responses: Record<number, JsonObject>,
): JsonObject {
  return { operationId, summary, description, tags: [PROBES_TAG.name], security: [], responses };
}

function json(
  description: string,
  response: ClassConstructor<object>,
  schemas: Readonly<Record<string, JsonObject>>,
): JsonObject {
  const schema = refTo(response);
  return {
    description,
    headers: OPERATION_HEADERS,
    content: { 'application/json': { schema, example: exampleOf(schema, schemas) } },
  };
}
