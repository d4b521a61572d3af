import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { buildContainer } from '../../src/composition/container';
import { EMBEDDED_POOL_SIZE } from '../../src/infrastructure/database/embedded-postgres';
import { createDatabaseClients, isDatabaseUnavailable, type PrismaClient } from '../../src/infrastructure/database/prisma-client';
import { LruVerifiedKeyCache } from '../../src/infrastructure/api-key-cache/lru-verified-key-cache';
import { databaseReadiness } from '../../src/infrastructure/database/readiness';
import { createApp } from '../../src/interfaces/http/app';
import { proxyInFrontOf, type TcpProxy } from '../support/tcp-proxy';
import { provisionTestDatabase, type TestDatabase } from '../support/test-database';

// The database goes away during a run (a TCP proxy in front of it is stopped) and comes back.
describe('when the database is down', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let prisma: PrismaClient;
  let app: ReturnType<typeof createApp>;
  const errors: unknown[] = [];

  beforeAll(async () => {
    database = await provisionTestDatabase();
    let url: string;
    ({ proxy, url } = await proxyInFrontOf(database.connectionString));
    const clients = createDatabaseClients(url, process.env.DATABASE_URL ? {} : { maxConnections: EMBEDDED_POOL_SIZE });
    prisma = clients.prisma;
    // Keys verified before the outage stay verified in memory, as in the service: requests get past
    // authentication and fail where they first need the database (for a keyed one, its key).
    const verifiedKeyCache = new LruVerifiedKeyCache({ maxEntries: 10 });
    app = createApp(buildContainer({ prisma, sql: clients.sql, verifiedKeyCache }), {
      formSecret: randomBytes(32).toString('base64url'),
      readiness: databaseReadiness(prisma),
      isUnavailable: isDatabaseUnavailable,
      logError: (error) => errors.push(error),
    });
  });

  afterAll(async () => {
    await prisma.$disconnect();
    await proxy.close();
    await database.close();
  });

  it('answers 503 with Retry-After quickly, keeps no answer under an Idempotency-Key, fails /readyz, stays up, and recovers by itself', async () => {
    const signUp = await request(app).post('/v1/accounts').send({ email: `outage-${Date.now()}@example.com`, password: 'correct horse battery' });
    expect(signUp.status).toBe(201);
    const auth = `Bearer ${signUp.body.api_key}`;
    expect((await request(app).get('/readyz')).status).toBe(200);
    expect((await request(app).get('/timelines').set('Authorization', auth)).status).toBe(200); // the key is now verified in memory

    await proxy.stop();
    const started = Date.now();
    const down = await request(app).post('/v1/anchors').set('Authorization', auth).send({ description: 'While down' });
    expect(down.status).toBe(503);
    expect(down.headers['retry-after']).toBe('5');
    expect(down.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(down.body).toMatchObject({ status: 503, code: 'service_unavailable' });
    expect(Date.now() - started).toBeLessThan(10_000);
    const notReady = await request(app).get('/readyz');
    expect([notReady.status, notReady.body]).toEqual([503, { status: 'not ready', reason: 'the database does not answer' }]);
    // A keyed write refused by the outage keeps no answer under its key: sent again later, it runs.
    const keyed = () => request(app).post('/v1/anchors').set('Authorization', auth).set('Idempotency-Key', 'during-outage').send({ description: 'Keyed' });
    expect((await keyed()).status).toBe(503);
    expect((await request(app).get('/healthz')).status).toBe(200); // the process is alive

    await proxy.start();
    let back = await request(app).post('/v1/anchors').set('Authorization', auth).send({ description: 'After' });
    for (let attempt = 0; back.status === 503 && attempt < 20; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      back = await request(app).post('/v1/anchors').set('Authorization', auth).send({ description: 'After' });
    }
    expect(back.status).toBe(201);
    expect((await request(app).get('/readyz')).status).toBe(200);
    const keyedAgain = await keyed();
    expect([keyedAgain.status, keyedAgain.headers['idempotent-replayed']]).toEqual([201, undefined]);
    expect((await keyed()).headers['idempotent-replayed']).toBe('true');
    // Nothing written while down: exactly the two anchors made after the database came back.
    expect(await database.prisma.anchor.count({ where: { accountId: signUp.body.id } })).toBe(2);
    expect(errors.every(isDatabaseUnavailable)).toBe(true);
  }, 60_000);
});
