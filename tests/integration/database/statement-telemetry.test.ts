// Every statement on the pool Prisma and the service share is a client span under whatever span
// sent it, and is timed by its summary; each wait for a connection is timed. Checked on a real
// database, with OpenTelemetry's SDK keeping the spans in memory.
import { once } from 'node:events';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { Client, Query } from 'pg';
import { createDatabaseClients, type DatabaseClients } from '../../../src/infrastructure/database/driver/prisma-client';
import { databaseTarget, watchStatements } from '../../../src/infrastructure/database/driver/statement-telemetry';
import { DatabaseMetrics } from '../../../src/infrastructure/metrics/database-metrics';
import { createMetricsRegistry } from '../../../src/infrastructure/metrics/metrics-registry';
import { samplesOf } from '../../support/metrics/exposition';
import { parentOf, startInMemoryTracing, type InMemoryTracing } from '../../support/telemetry/in-memory-tracing';
import { provisionTestDatabase, type TestDatabase } from '../../support/test-database';

jest.setTimeout(30_000);

describe('statements watched', () => {
  let database: TestDatabase;
  let tracing: InMemoryTracing;
  let clients: DatabaseClients;
  let registry: ReturnType<typeof createMetricsRegistry>;

  beforeAll(async () => {
    database = await provisionTestDatabase();
  });
  afterAll(() => database.close());
  beforeEach(() => {
    tracing = startInMemoryTracing();
    registry = createMetricsRegistry();
    // One connection: a second unit waits for the first, as requests do on a busy pool.
    clients = createDatabaseClients(database.connectionString, {
      maxConnections: 1,
      telemetry: { tracer: tracing.tracer, times: new DatabaseMetrics(registry) },
    });
  });
  afterEach(async () => {
    await clients.prisma.$disconnect();
    await tracing.close();
  });

  /** Runs `work` in a span named `name`, as a use case runs; answers the span's id. */
  async function inSpan(name: string, work: () => Promise<unknown>): Promise<string> {
    return tracing.tracer.startActiveSpan(name, async (span) => {
      try {
        await work();
        return span.spanContext().spanId;
      } finally {
        span.end();
      }
    });
  }

  it("makes each statement, Prisma's and the service's own, a child span with its text and no value", async () => {
    const secret = 'someone-secret@example.com';
    const parent = await inSpan('LookUp', async () => {
      await clients.sql.query('SELECT count(*) FROM accounts WHERE email = $1', [secret]);
      await clients.prisma.account.findUnique({ where: { email: secret } });
    });
    const statements = tracing.spans().filter((span) => span.kind === SpanKind.CLIENT && parentOf(span) === parent);
    // The pool's first connection set up its session for the request that needed it: its cost shows.
    expect(statements.map((span) => span.name)).toEqual(['SET', 'SELECT accounts', 'SELECT accounts']);
    for (const statement of statements.slice(1)) {
      expect(statement.attributes).toMatchObject({
        'db.system.name': 'postgresql',
        'db.query.summary': 'SELECT accounts',
        'db.namespace': new URL(database.connectionString).pathname.slice(1),
        'server.address': new URL(database.connectionString).hostname,
      });
      expect(statement.attributes['db.query.text']).toMatch(/\$1/);
      expect(JSON.stringify(statement.attributes)).not.toContain(secret);
      expect(statement.status.code).toBe(SpanStatusCode.UNSET);
    }
    const text = await registry.metrics();
    expect(
      samplesOf(text, 'db_client_operation_duration_seconds_count', { db_query_summary: 'SELECT accounts' }),
    ).toEqual([2]);
  });

  it('marks a refused statement failed with its SQLSTATE', async () => {
    await inSpan('Refused', () => clients.sql.query('SELECT 1 / $1::int AS quotient', [0]).catch(() => undefined));
    const [statement] = tracing.spans().filter((span) => span.kind === SpanKind.CLIENT && span.name === 'SELECT');
    expect(statement?.attributes['error.type']).toBe('22012');
    expect(statement?.attributes['db.response.status_code']).toBe('22012');
    expect(statement?.status.code).toBe(SpanStatusCode.ERROR);
    const text = await registry.metrics();
    expect(samplesOf(text, 'db_client_operation_duration_seconds_count', { error_type: '22012' })).toEqual([1]);
  });

  it("passes a submittable query (pg's Query, pg-cursor) on as it is: it is its own answer", async () => {
    const client = new Client({ connectionString: database.connectionString });
    watchStatements(client, { tracer: tracing.tracer }, databaseTarget(database.connectionString));
    await client.connect();
    try {
      const submitted = new Query('SELECT 1 AS one');
      const rows: unknown[] = [];
      submitted.on('row', (row: unknown) => rows.push(row));
      const ended = once(submitted, 'end');
      expect(client.query(submitted)).toBe(submitted);
      await ended;
      expect(rows).toEqual([{ one: 1 }]);
    } finally {
      await client.end();
    }
  });

  it('keeps a request that waited for a connection in its own trace, and times the wait', async () => {
    let first = '';
    let second = '';
    await Promise.all([
      inSpan('First', () => clients.sql.query('SELECT pg_sleep(0.2) AS slept', [])).then((id) => (first = id)),
      // Queued behind the first: its connection comes when the first gives it back, in the first's
      // callback, yet its statement belongs to the second.
      inSpan('Second', () => clients.sql.query('SELECT 2 AS second', [])).then((id) => (second = id)),
    ]);
    const byParent = (parent: string) =>
      tracing
        .spans()
        .filter((span) => span.kind === SpanKind.CLIENT && parentOf(span) === parent)
        .map((span) => span.attributes['db.query.text']);
    expect(byParent(first)).toContain('SELECT pg_sleep(0.2) AS slept');
    expect(byParent(second)).toEqual(['SELECT 2 AS second']);
    const text = await registry.metrics();
    const waits = samplesOf(text, 'db_client_connection_wait_time_seconds_count');
    expect(waits[0]).toBeGreaterThanOrEqual(2);
    // The second waited for the first's sleep.
    expect(samplesOf(text, 'db_client_connection_wait_time_seconds_bucket', { le: '0.1' })[0]).toBeLessThan(
      waits[0] ?? 0,
    );
  });
});
