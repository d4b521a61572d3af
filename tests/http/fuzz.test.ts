import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import request from 'supertest';
import { buildContainer } from '../../src/composition/container';
import { allRoutes } from '../../src/interfaces/http/app';
import type { Family, Route } from '../../src/interfaces/http/route';
import { faultsOf, send } from '../support/fuzz/answers';
import { requestsFor, type FuzzContext, type FuzzedRoute } from '../support/fuzz/requests';
import type { KnownValues } from '../support/fuzz/values';
import { inputSchemaOf, type OpenApiDocument } from '../support/isolation/identifier-fields';
import { ALL_TIME, asAccount, type AccountClient } from '../support/http/as-account';
import { startTestApp, type TestApp } from '../support/http/test-app';

// Generated requests to every operation of the route table: near-valid, hostile, malformed and
// unauthenticated. Whatever comes in, the answer is JSON, never a 5xx, and every error is a
// problem document (docs/errors.md). FUZZ_SEED=<n> replays a run (a failure prints its seed and
// path); FUZZ_RUNS sets the requests per operation.
const RUNS_PER_OPERATION = Number(process.env.FUZZ_RUNS ?? 250);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const FAMILIES: readonly Family[] = ['accounts', 'A', 'B', 'C', 'webhooks', 'api-keys'];

describe('fuzzing every operation', () => {
  let t: TestApp;
  let routes: Route[];
  let server: http.Server;
  let port: number;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let context: FuzzContext;
  let document: OpenApiDocument;

  beforeAll(async () => {
    t = await startTestApp();
    routes = allRoutes(buildContainer({ prisma: t.prisma, sql: t.sql, wallClock: t.clock }));
    document = (await request(t.app).get('/openapi.json')).body;
    const me = asAccount(t, await t.signUp());
    const other = asAccount(t, await t.signUp());
    context = {
      components: document.components.schemas,
      known: await knownValues(me, other),
      apiKey: me.account.apiKey,
    };
    server = t.app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', resolve));
    const address: AddressInfo | string | null = server.address();
    if (address === null || typeof address === 'string') throw new Error('the test server has no port');
    port = address.port;
  });

  afterAll(async () => {
    agent.destroy();
    if (server)
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    await t.close();
  });

  it('derives the operations from the route table, every family included', () => {
    expect(routes.length).toBeGreaterThanOrEqual(20);
    expect(new Set(routes.map((route) => route.family))).toEqual(new Set(FAMILIES));
  });

  it.each(FAMILIES)(
    'answers every generated request to family %s with JSON, no 5xx, and problem documents',
    async (family) => {
      const ofFamily = routes.filter((route) => route.family === family);
      expect(ofFamily.length).toBeGreaterThan(0);
      const failures: string[] = [];
      for (const route of ofFamily) {
        const fuzzed = fuzzedRoute(route, document);
        const property = fc.asyncProperty(requestsFor(fuzzed, context), async (generated) => {
          const answer = await send(port, agent, generated);
          const faults = faultsOf(answer);
          if (faults.length > 0) throw new Error(`${answer.status} ${faults.join('; ')}\n${answer.text.slice(0, 500)}`);
        });
        const details = await fc.check(property, {
          numRuns: RUNS_PER_OPERATION,
          includeErrorInReport: true,
          ...(SEED === undefined ? {} : { seed: SEED }),
        });
        if (details.failed)
          failures.push(
            `${route.method.toUpperCase()} ${route.path} ` +
              `(${route.operationId}):\n${(fc.defaultReportMessage(details) ?? '').slice(0, 4_000)}`,
          );
      }
      // Every failing operation is reported, not only the first.
      expect(failures).toEqual([]);
    },
    170_000,
  );
});

/** The route as the fuzzer needs it, with its input schema from the served OpenAPI document. */
function fuzzedRoute(route: Route, document: OpenApiDocument): FuzzedRoute {
  const input = inputSchemaOf(route, document);
  const dto = route.method === 'get' ? route.query : route.body;
  if (dto !== undefined && input === undefined)
    throw new Error(`the OpenAPI document has no input for ${route.operationId}`);
  return {
    method: route.method,
    path: route.path,
    authenticated: route.scope !== null,
    ...(input === undefined ? {} : { input }),
  };
}

/** Real identifiers of both accounts and real cursors, so near-valid requests get past validation. */
async function knownValues(me: AccountClient, other: AccountClient): Promise<KnownValues> {
  const created = async (client: AccountClient, path: string, body: object, field: string): Promise<string> => {
    const response = await client.post(path, body);
    const value: unknown = response.body[field];
    if (response.status >= 300 || typeof value !== 'string')
      throw new Error(`setting up ${path}: ${response.status} ${response.text}`);
    return value;
  };
  const timelineIds = [
    await created(
      me,
      '/v1/timelines',
      { name: 'Apollo 11', destination_time: '1969-07-20T20:17:40Z', window: '10080 minutes' },
      'id',
    ),
    await created(me, '/v1/timelines', { name: 'Globe Theatre', destination_time: '1600-01-01T00:00:00Z' }, 'id'),
  ];
  await created(
    me,
    '/v1/travel',
    { destination_time: '1969-07-20T20:17:40Z', location: 'Sea of Tranquility' },
    'status',
  );
  const anchorIds = [await created(me, '/v1/anchors', { description: 'Home' }, 'id')];
  const endpoint = { url: 'https://example.com/hooks', event_types: ['event.recorded'] };
  const webhookEndpointIds = [await created(me, '/v1/webhook-endpoints', endpoint, 'id')];
  const itemIds = [await created(me, '/v1/items', { description: 'Moon rock' }, 'id')];
  const scan = await me.post('/api/v1/scan-events', { location: 'Sea of Tranquility', time_range: ALL_TIME, limit: 1 });
  const events: ReadonlyArray<{ event_id: string; description: string }> = scan.body.events ?? [];
  const page = await me.get('/timelines', { limit: 1 });
  const foreignIds = [
    await created(other, '/v1/timelines', { name: 'Elsewhere', destination_time: '2000-01-01T00:00:00Z' }, 'id'),
    await created(other, '/v1/anchors', { description: 'Their home' }, 'id'),
    await created(other, '/v1/items', { description: 'Their rock' }, 'id'),
    await created(other, '/v1/webhook-endpoints', endpoint, 'id'),
  ];
  return {
    timelineIds,
    anchorIds,
    itemIds,
    eventIds: events.map((event) => event.event_id),
    eventNames: events.map((event) => event.description),
    webhookEndpointIds,
    cursors: [scan.body.next_cursor, page.body.next_cursor].filter(
      (cursor): cursor is string => typeof cursor === 'string',
    ),
    foreignIds,
  };
}
