import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { buildContainer } from '../../src/composition/container';
import { LruVerifiedKeyCache } from '../../src/infrastructure/api-key-cache/lru-verified-key-cache';
import { EMBEDDED_POOL_SIZE } from '../../src/infrastructure/database/embedded/embedded-postgres';
import { createDatabaseClients, type DatabaseClients } from '../../src/infrastructure/database/driver/prisma-client';
import { databaseReadiness } from '../../src/infrastructure/database/health/readiness';
import { databaseFailureOf } from '../../src/infrastructure/database/driver/database-failures';
import { createApp } from '../../src/interfaces/http/app';
import { OpenApiContract, type LocatedOperation, type OpenApiDocument } from '../support/http/openapi-contract';
import { proxyInFrontOf, type TcpProxy } from '../support/tcp-proxy';
import { provisionTestDatabase, type TestDatabase } from '../support/test-database';

type App = ReturnType<typeof createApp>;

/**
 * With the database gone, every operation of the served document is sent its own example request,
 * and must answer what the document declares for that case: 503 with Retry-After and X-Request-Id,
 * a problem (the probes: their own body). Requests fail at each place that first needs the
 * database: the operation's work, an Idempotency-Key, the API key, the rate limits.
 */
describe('with the database away, every operation answers the 503 its document declares', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let clients: DatabaseClients;
  let contract: OpenApiContract;
  /** Keys verified before the outage stay verified in memory: requests get as far as their work. */
  let pastTheKey: App;
  /** Nothing cached, every limit on: requests stop at the key, or at the limit of sign-ups. */
  let atTheDoor: App;
  let auth: string;

  const appWith = (options: { cache: boolean; rateLimit: boolean }): App =>
    createApp(
      buildContainer({
        ...clients,
        ...(options.cache ? { verifiedKeyCache: new LruVerifiedKeyCache({ maxEntries: 10 }) } : {}),
      }),
      {
        formSecret: randomBytes(32).toString('base64url'),
        readiness: databaseReadiness(clients.prisma),
        databaseFailureOf,
        logError: () => undefined,
        ...(options.rateLimit ? { rateLimit: { perAccountPerSecond: 1_000, accountsPerMinute: 1_000 } } : {}),
      },
    );

  beforeAll(async () => {
    database = await provisionTestDatabase();
    let url: string;
    ({ proxy, url } = await proxyInFrontOf(database.connectionString));
    clients = createDatabaseClients(url, process.env.DATABASE_URL ? {} : { maxConnections: EMBEDDED_POOL_SIZE });
    pastTheKey = appWith({ cache: true, rateLimit: false });
    atTheDoor = appWith({ cache: false, rateLimit: true });
    const document: OpenApiDocument = (await request(pastTheKey).get('/openapi.json')).body;
    contract = new OpenApiContract(document);
    const signUp = await request(pastTheKey)
      .post('/v1/accounts')
      .send({ email: `openapi-outage-${Date.now()}@example.com`, password: 'correct horse battery' });
    auth = `Bearer ${signUp.body.api_key}`;
    expect((await request(pastTheKey).get('/timelines').set('Authorization', auth)).status).toBe(200);
    await proxy.stop();
  });

  afterAll(async () => {
    await clients.prisma.$disconnect();
    await proxy.close();
    await database.close();
  });

  /** The operation's example request, with the key, and the extra headers given. */
  function send(
    app: App,
    { method, path, operation }: LocatedOperation,
    headers: Record<string, string> = {},
  ): Promise<request.Response> {
    const parameters = operation.parameters ?? [];
    const url = path.replace(/\{([^}]+)\}/g, (_match, name: string) =>
      encodeURIComponent(String(parameters.find((p) => p.name === name)?.example)),
    );
    const query = Object.fromEntries(
      parameters.filter((p) => p.in === 'query' && p.example !== undefined).map((p) => [p.name, String(p.example)]),
    );
    const body = operation.requestBody?.content['application/json']?.example;
    const asked =
      method === 'get'
        ? request(app).get(url).query(query)
        : method === 'head'
          ? request(app).head(url).query(query)
          : method === 'delete'
            ? request(app).delete(url)
            : method === 'patch'
              ? request(app).patch(url)
              : request(app).post(url);
    const sent = asked.set(headers);
    const keyed = operation.security?.length === 0 ? sent : sent.set('Authorization', auth);
    return typeof body === 'object' && body !== null ? keyed.send(body) : keyed;
  }

  const cases: Array<[string, () => App, boolean]> = [
    ['past the key, in the work itself', () => pastTheKey, false],
    ['past the key, at the Idempotency-Key of a POST', () => pastTheKey, true],
    ['at the API key or the limit of sign-ups', () => atTheDoor, false],
  ];

  it.each(cases)(
    '%s',
    async (_where, app, withIdempotencyKey) => {
      const answered: string[] = [];
      for (const located of contract.operations()) {
        const { operationId } = located.operation;
        // Where the operation takes one: a POST that needs a key, but the creation of a key.
        const keyed =
          withIdempotencyKey && (located.operation.parameters ?? []).some(({ name }) => name === 'Idempotency-Key');
        const response = await send(app(), located, keyed ? { 'Idempotency-Key': `outage-${operationId}` } : {});
        // Only the liveness probe answers without the database.
        const expected = operationId === 'health' ? 200 : 503;
        expect({ operationId, status: response.status }).toEqual({ operationId, status: expected });
        contract.expectConforms(operationId, response);
        if (expected === 503) expect(response.headers['retry-after']).toBe('5');
        answered.push(operationId);
      }
      expect(answered.length).toBeGreaterThan(20);
    },
    60_000,
  );
});
