// A DATABASE_URL that leads to a standby (docs/operations.md, "When the database accepts no writes"):
// a PostgreSQL primary and its hot standby of the test's own, the service's pool on the standby
// (DATABASE_URL) and its migrations and listening connections on the primary (DATABASE_DIRECT_URL,
// as behind a pooler). /readyz says so; each write is answered 503 with Retry-After, the condition
// logged once and counted, not an outage per write; reads still answer.
import { randomBytes } from 'node:crypto';
import { prepareVerifiedKeyCaching } from '../../src/composition/verified-key-cache';
import { DEFAULT_API_KEY_CACHE_SIZE } from '../../src/settings';
import { isReadOnly } from '../../src/infrastructure/database/driver/database-failures';
import { createDatabaseClients } from '../../src/infrastructure/database/driver/prisma-client';
import { databaseReadiness } from '../../src/infrastructure/database/health/readiness';
import { freeLoopbackPort } from '../support/free-port';
import { samplesOf } from '../support/metrics/exposition';
import { startPrimaryAndStandby, type PrimaryAndStandby } from '../support/postgres-standby';
import { call } from '../support/process-client';
import { startServiceProcess, type ServiceProcess } from '../support/service-process';

jest.setTimeout(120_000);

const READ_ONLY_LINE = 'database read-only (a standby, in recovery)';
const OUTAGE_LINE = 'database unavailable: requests that need it';

let servers: PrimaryAndStandby;
let service: ServiceProcess;
let metricsUrl: string;

beforeAll(async () => {
  servers = await startPrimaryAndStandby();
  const metricsPort = await freeLoopbackPort();
  metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  service = await startServiceProcess({
    DATABASE_URL: servers.standbyUrl,
    DATABASE_DIRECT_URL: servers.primaryUrl,
    // Otherwise the start would write it through the pool, on the standby.
    CSRF_SECRET: randomBytes(32).toString('base64url'),
    METRICS_PORT: String(metricsPort),
    LOG_LEVEL: 'info',
    RATE_LIMIT_ACCOUNTS_PER_MINUTE: '0',
  });
  // The migrations the start applied on the primary, on the standby too.
  await servers.caughtUp();
});

afterAll(async () => {
  await service?.kill('SIGKILL');
  await servers?.stop();
});

/** The service's log lines (JSON on standard output) whose message starts with `text`. */
function linesStartingWith(text: string): Array<Record<string, unknown>> {
  return service
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => typeof line.msg === 'string' && line.msg.startsWith(text));
}

it('is not ready, saying the database is a standby, while the process is alive', async () => {
  const ready = await call(service.url, 'GET', '/readyz');
  expect([ready.status, ready.body.reason]).toEqual([
    503,
    'the database is a standby (in recovery) and accepts no writes: DATABASE_URL must lead to the primary',
  ]);
  expect(ready.headers['retry-after']).toBe('5');
  expect((await call(service.url, 'GET', '/healthz')).status).toBe(200);
});

it('answers each write 503 with Retry-After, logs the condition once and counts it, with no outage', async () => {
  for (let n = 0; n < 3; n += 1) {
    const signUp = await call(service.url, 'POST', '/v1/accounts', {
      body: { email: `standby-${n}@example.com`, password: 'a quiet lantern over the fjord' },
    });
    expect([signUp.status, signUp.body.code, signUp.headers['retry-after']]).toEqual([503, 'service_unavailable', '5']);
  }
  // A read still answers: an unknown key is looked up on the standby and refused.
  const read = await call(service.url, 'GET', '/timelines', { auth: `Bearer tns_${'0'.repeat(43)}` });
  expect(read.status).toBe(401);

  const text = await (await fetch(metricsUrl)).text();
  expect(samplesOf(text, 'tns_db_read_only_refusals_total')).toEqual([3]);
  expect(samplesOf(text, 'tns_db_outages_total')).toEqual([0]);
  expect(samplesOf(text, 'tns_db_available')).toEqual([1]);
  const [line, ...more] = linesStartingWith(READ_ONLY_LINE);
  expect(more).toEqual([]);
  expect(line).toMatchObject({ level: 40, refused_since_last_line: 0 });
  expect(line.reason).toMatch(/read-only transaction/);
  expect(linesStartingWith(OUTAGE_LINE)).toEqual([]);
});

it("says so too without a pooler, where the standby refuses the read itself: the pool's LISTEN", async () => {
  // As the service's pool on the server itself: each new connection LISTENs for key changes.
  const keyCaching = prepareVerifiedKeyCaching({ maxEntries: DEFAULT_API_KEY_CACHE_SIZE });
  const clients = createDatabaseClients(servers.standbyUrl, { maxConnections: 1, onConnect: keyCaching.onConnect });
  try {
    const readiness = await databaseReadiness(clients.prisma)();
    expect(readiness).toMatchObject({
      ready: false,
      reason: 'the database is a standby (in recovery) and accepts no writes: DATABASE_URL must lead to the primary',
    });
    expect(isReadOnly(readiness.failure)).toBe(true);
  } finally {
    await clients.prisma.$disconnect();
    await keyCaching.close();
  }
});
