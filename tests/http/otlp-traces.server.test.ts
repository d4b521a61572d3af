// The service's traces as a collector receives them: service processes export OTLP over HTTP to a
// receiver in the test (tests/support/telemetry/otlp-receiver.ts), which decodes every span, in
// binary protobuf and in JSON. Checked: the caller's trace continued (directly and through the
// shipped nginx), the server, use-case and statement spans and their parents, what a statement span
// carries and never carries, a change's delivery on a stream in the writer's trace, the log
// lines' trace ids, and each worker's count of its exported spans in the cluster's one scrape.
// Needs DATABASE_URL (two workers on one database).
import { randomBytes } from 'node:crypto';
import { freeLoopbackPort } from '../support/free-port';
import { samplesOf } from '../support/metrics/exposition';
import { call, signUpThrough } from '../support/process-client';
import { openStream } from '../support/http/event-stream-client';
import { proxyClient } from '../support/reverse-proxy/client';
import { startNginx, type Nginx } from '../support/reverse-proxy/nginx';
import { startServiceProcess, type ServiceProcess } from '../support/service-process';
import { OtlpReceiver, type ReceivedSpan, SPAN_KIND } from '../support/telemetry/otlp-receiver';
import { provisionTestDatabase, type TestDatabase } from '../support/test-database';
import { waitFor } from '../support/wait-for';

const QUIET = { RATE_LIMIT_PER_SECOND: '0', RATE_LIMIT_ACCOUNTS_PER_MINUTE: '0' };
const PLACE = 'Globe Theatre';
const QUERY = `location=${encodeURIComponent(PLACE)}&time_range=1600-01-01T00:00:00Z/1600-01-02T00:00:00Z`;
/** Spans leave the service in batches: every 100 ms here rather than OpenTelemetry's 5 s. */
const PROMPT_EXPORT = { OTEL_BSP_SCHEDULE_DELAY: '100' };

/** A caller's trace context, as a traced client or proxy sends it. */
function callerContext(): { traceId: string; spanId: string; traceparent: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

async function traced(url: string, init: { method?: string; auth: string; traceparent: string; body?: unknown }) {
  const response = await fetch(url, {
    method: init.method ?? 'GET',
    headers: {
      Authorization: init.auth,
      traceparent: init.traceparent,
      tracestate: 'vendor=opaque',
      ...(init.body !== undefined && { 'Content-Type': 'application/json' }),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

function only(spans: ReceivedSpan[], what: string): ReceivedSpan {
  if (spans.length !== 1) throw new Error(`expected one ${what}, found ${spans.length}`);
  return spans[0] as ReceivedSpan;
}

describe('traces exported over OTLP', () => {
  let database: TestDatabase;
  let receiver: OtlpReceiver;
  let service: ServiceProcess | undefined;
  let nginx: Nginx | undefined;

  beforeEach(async () => {
    database = await provisionTestDatabase();
    receiver = await OtlpReceiver.start();
  });
  afterEach(async () => {
    await nginx?.stop();
    nginx = undefined;
    await service?.kill('SIGKILL');
    service = undefined;
    await receiver.close();
    await database.close();
  });

  it('continues the caller trace into the use case and its statements (http/protobuf, two workers)', async () => {
    const metricsPort = await freeLoopbackPort();
    service = await startServiceProcess({
      DATABASE_URL: database.connectionString,
      WEB_CONCURRENCY: '2',
      METRICS_PORT: String(metricsPort),
      LOG_LEVEL: 'info',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      ...PROMPT_EXPORT,
      ...QUIET,
    });
    await service.printed(/Workers: 2 processes/);
    const account = await signUpThrough(service.url, 'traces');
    const caller = callerContext();
    const secretName = `Timeline ${randomBytes(6).toString('hex')}`;
    const created = await traced(`${service.url}/v1/timelines`, {
      method: 'POST',
      auth: account.auth,
      traceparent: caller.traceparent,
      body: { name: secretName, destination_time: '1600-01-01T12:00:00Z', window: '60 minutes' },
    });
    expect(created.status).toBe(201);

    const spans = await waitFor(
      () => {
        const found = receiver.inTrace(caller.traceId);
        return found.some((span) => span.kind === SPAN_KIND.server) && found.length >= 3 && found;
      },
      { what: "the request's spans at the receiver", timeoutMs: 10_000 },
    );
    const server = only(
      spans.filter((span) => span.kind === SPAN_KIND.server),
      'server span',
    );
    // The caller's span is the server span's parent: the trace goes on from the caller.
    expect(server.parentSpanId).toBe(caller.spanId);
    expect(server.name).toBe('POST /v1/timelines');
    expect(server.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/v1/timelines',
      'http.response.status_code': 201,
      'url.path': '/v1/timelines',
    });
    expect(server.encoding).toBe('protobuf');
    expect(server.resource['service.name']).toBe('time-navigation-service');

    const useCase = only(
      receiver.named('CreateTimeline').filter((span) => span.traceId === caller.traceId),
      'use case',
    );
    expect(useCase.parentSpanId).toBe(server.spanId);
    expect(useCase.kind).toBe(SPAN_KIND.internal);

    // Each statement a child of a use case's span (the key's check is one too), named by its
    // summary, with its text and never a value sent with it.
    const authentication = only(
      receiver.named('AuthenticateApiKey').filter((span) => span.traceId === caller.traceId),
      'authentication',
    );
    expect(authentication.parentSpanId).toBe(server.spanId);
    const statements = spans.filter((span) => span.kind === SPAN_KIND.client);
    for (const statement of statements) {
      expect([useCase.spanId, authentication.spanId]).toContain(statement.parentSpanId);
      expect(statement.attributes['db.system.name']).toBe('postgresql');
      expect(statement.name).toBe(statement.attributes['db.query.summary']);
      expect(JSON.stringify(statement.attributes)).not.toContain(secretName);
    }
    const write = statements.find((span) => String(span.attributes['db.query.text']).includes('"timelines"'));
    expect(write?.attributes['db.query.text']).toMatch(/\$1/);
    expect(write?.name).toMatch(/INSERT timelines/);
    expect(write?.parentSpanId).toBe(useCase.spanId);

    // The request's log line names its trace and its server span.
    const line = await waitFor(
      () =>
        service
          ?.output()
          .split('\n')
          .find((text) => text.includes(`"trace_id":"${caller.traceId}"`) && text.includes('request completed')),
      { what: "the request's log line with its trace id", timeoutMs: 5_000 },
    );
    expect(JSON.parse(line)).toMatchObject({ trace_id: caller.traceId, span_id: server.spanId });
    expect(receiver.refused).toEqual([]);

    // Each worker counts its exported spans, in the primary's one scrape; none lost.
    const scrape = async () => (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const exported = await waitFor(
      async () => {
        const text = await scrape();
        const byWorker = samplesOf(text, 'otel_sdk_processor_span_processed_total', { error_type: '' });
        return byWorker.length === 2 && byWorker.reduce((sum, count) => sum + count, 0) >= spans.length && text;
      },
      { what: "the exported spans in the workers' metrics", timeoutMs: 10_000 },
    );
    expect(samplesOf(exported, 'otel_sdk_processor_span_processed_total', { error_type: 'queue_full' })).toEqual([
      0, 0,
    ]);
    expect(await service.stop()).toBe(0);
    service = undefined;
  }, 90_000);

  it("delivers a change on a stream as a span in the writer's trace, across workers", async () => {
    service = await startServiceProcess({
      DATABASE_URL: database.connectionString,
      WEB_CONCURRENCY: '2',
      LOG_LEVEL: 'warn',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      ...PROMPT_EXPORT,
      ...QUIET,
    });
    await service.printed(/Workers: 2 processes/);
    const account = await signUpThrough(service.url, 'delivery');
    expect((await call(service.url, 'POST', '/v1/pause-time', { auth: account.auth })).status).toBe(200);
    // Two streams: the workers take connections in turn, so the write's worker is not the only one.
    const streams = [0, 1].map(() => openStream(`${service?.url}/v1/monitor-events?${QUERY}`, account.auth));
    const caller = callerContext();
    let deliveries: ReceivedSpan[];
    try {
      await Promise.all(streams.map((stream) => stream.waitFor(1, 10_000)));
      const travelled = await traced(`${service.url}/api/v1/travel`, {
        method: 'POST',
        auth: account.auth,
        traceparent: caller.traceparent,
        body: { destination_time: '1600-01-01T12:00:00Z', location: PLACE },
      });
      expect(travelled.status).toBe(200);
      await Promise.all(streams.map((stream) => stream.waitFor(2, 10_000)));
      deliveries = await waitFor(
        () => {
          const found = receiver.named('deliver recorded').filter((span) => span.traceId === caller.traceId);
          return found.length === 2 && found;
        },
        { what: 'a delivery span for each stream, in the writer trace', timeoutMs: 10_000 },
      );
    } finally {
      streams.forEach((stream) => stream.close());
    }
    const writer = only(
      receiver.named('TravelToMoment').filter((span) => span.traceId === caller.traceId),
      'use case of the write',
    );
    const streamRequests = new Set<string>();
    for (const delivery of deliveries) {
      expect(delivery.kind).toBe(SPAN_KIND.producer);
      // A child of the write's use case, linked to its stream's own request.
      expect(delivery.parentSpanId).toBe(writer.spanId);
      expect(delivery.links).toHaveLength(1);
      for (const link of delivery.links) streamRequests.add(link.spanId);
    }
    // Each stream's request is a server span of its own, exported when its stream ends.
    expect(streamRequests.size).toBe(2);
    const ended = await waitFor(
      () => {
        const found = receiver.spans.filter((span) => streamRequests.has(span.spanId));
        return found.length === 2 && found;
      },
      { what: "the streams' request spans", timeoutMs: 10_000 },
    );
    for (const request of ended) {
      expect(request.kind).toBe(SPAN_KIND.server);
      expect(request.name).toBe('GET /v1/monitor-events');
    }
  }, 90_000);

  it('exports in JSON, and continues a trace through the shipped nginx', async () => {
    service = await startServiceProcess({
      DATABASE_URL: database.connectionString,
      LOG_LEVEL: 'warn',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'tns-behind-nginx',
      TRUST_PROXY: 'loopback',
      ...PROMPT_EXPORT,
      ...QUIET,
    });
    const account = await signUpThrough(service.url, 'nginx');
    nginx = await startNginx(new URL(service.url).host);
    const client = proxyClient(nginx);
    const caller = callerContext();
    const answer = await client({
      path: '/timelines',
      headers: { Authorization: account.auth, traceparent: caller.traceparent },
    });
    expect(answer.status).toBe(200);

    const server = await waitFor(
      () => receiver.inTrace(caller.traceId).find((span) => span.kind === SPAN_KIND.server),
      { what: 'the server span of the request through nginx', timeoutMs: 10_000 },
    );
    expect(server.parentSpanId).toBe(caller.spanId);
    expect(server.name).toBe('GET /timelines');
    expect(server.encoding).toBe('json');
    expect(server.resource['service.name']).toBe('tns-behind-nginx');
    // As the service saw it behind the proxy: the client's scheme and address.
    expect(server.attributes).toMatchObject({ 'url.scheme': 'https', 'client.address': '127.0.0.1' });
    const logged = await nginx.accessLog();
    expect(logged.some((line) => line.traceparent === caller.traceparent)).toBe(true);
    expect(receiver.refused).toEqual([]);
  }, 90_000);

  it('stops with exit code 0 when its collector is gone, saying spans were lost', async () => {
    service = await startServiceProcess({
      DATABASE_URL: database.connectionString,
      LOG_LEVEL: 'warn',
      // Nothing listens there: the last export at the stop fails.
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${await freeLoopbackPort()}`,
      // Spans still waiting for their batch when the stop comes.
      OTEL_BSP_SCHEDULE_DELAY: '60000',
      ...QUIET,
    });
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
    const stopped = performance.now();
    expect(await service.stop()).toBe(0);
    // Within the shutdown's bound (TRACING_SHUTDOWN_MS) and the database's close, not the exporter's 10 s.
    expect(performance.now() - stopped).toBeLessThan(8_000);
    expect(service.output()).toContain('OpenTelemetry: the last spans');
    service = undefined;
  }, 90_000);
});
