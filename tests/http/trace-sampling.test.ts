// A client cannot make its requests traced (docs/decisions.md, "Traces"): at a ratio below
// 1, requests carrying a sampled `traceparent` with the lowest trace id there is are sampled at the
// ratio, by the service's own draw, and those sampled continue the caller's trace. A parent-based
// sampler, named for a service behind a proxy that decides, follows the caller.
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { samplerFromEnv } from '../../src/infrastructure/telemetry/sampling';
import { startTestApp, type TestApp } from '../support/http/test-app';
import { serviceLog } from '../support/service-log';
import { waitFor } from '../support/wait-for';
import { parentOf, startInMemoryTracing, type InMemoryTracing } from '../support/telemetry/in-memory-tracing';

/** The lowest trace id there is: under a trace-id ratio sampler it would pass at any ratio above 0. */
const LOW_TRACE = '00000000000000000000000000000001';
const REQUESTS = 200;

const noWarning = (message: string) => {
  throw new Error(`unexpected warning: ${message}`);
};

describe("sampling a client's requests", () => {
  let tracing: InMemoryTracing | undefined;
  let t: TestApp | undefined;

  afterEach(async () => {
    await t?.close();
    await tracing?.close();
    t = tracing = undefined;
  });

  async function servedUnder(env: Record<string, string>): Promise<{ app: TestApp; tracing: InMemoryTracing }> {
    tracing = startInMemoryTracing({ sampler: samplerFromEnv(env, noWarning) });
    t = await startTestApp({ tracer: tracing.tracer });
    return { app: t, tracing };
  }

  /** Sends REQUESTS sampled `GET /healthz` with the low trace id, each from a span of its own: their ids. */
  async function sendSampledLowTraces(app: TestApp): Promise<Set<string>> {
    const callerSpans = new Set<string>();
    for (let i = 0; i < REQUESTS; i++) {
      const spanId = randomBytes(8).toString('hex');
      callerSpans.add(spanId);
      const answer = await request(app.app).get('/healthz').set('traceparent', `00-${LOW_TRACE}-${spanId}-01`);
      expect(answer.status).toBe(200);
    }
    return callerSpans;
  }

  it('at traceidratio 0.1: about one in ten, each in the caller trace', async () => {
    const { app, tracing } = await servedUnder({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' });
    const callerSpans = await sendSampledLowTraces(app);
    const sampled = tracing.named('GET /healthz');
    // 200 draws at 0.1: 20 expected; 60 or more has a chance below 1e-15, none below 1e-9.
    expect(sampled.length).toBeGreaterThan(0);
    expect(sampled.length).toBeLessThan(60);
    for (const span of sampled) {
      expect(span.spanContext().traceId).toBe(LOW_TRACE);
      expect(callerSpans.has(parentOf(span))).toBe(true);
    }
  }, 60_000);

  it("by default: every request, a caller's unsampled one too, in the caller trace", async () => {
    const { app, tracing } = await servedUnder({});
    const callerSpan = randomBytes(8).toString('hex');
    const answer = await request(app.app).get('/healthz').set('traceparent', `00-${LOW_TRACE}-${callerSpan}-00`);
    expect(answer.status).toBe(200);
    const [span] = tracing.named('GET /healthz');
    expect(span?.spanContext().traceId).toBe(LOW_TRACE);
    expect(span && parentOf(span)).toBe(callerSpan);
  }, 60_000);

  it("writes each request's trace_flags beside its ids in its log line: 01 kept, 00 not", async () => {
    tracing = startInMemoryTracing({
      sampler: samplerFromEnv(
        { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' },
        noWarning,
      ),
    });
    const log = serviceLog();
    t = await startTestApp({ tracer: tracing.tracer, logger: log.logger });
    const callerSpan = randomBytes(8).toString('hex');
    await request(t.app).get('/healthz').set('traceparent', `00-${LOW_TRACE}-${callerSpan}-01`);
    await request(t.app).get('/healthz').set('traceparent', `00-${LOW_TRACE}-${callerSpan}-00`);
    const [server] = tracing.named('GET /healthz');
    const lines = await waitFor(
      () => {
        const found = log.lines.filter((line) => line.msg === 'request completed');
        return found.length === 2 && found;
      },
      { what: 'the two request log lines' },
    );
    expect(lines).toEqual([
      expect.objectContaining({ trace_id: LOW_TRACE, span_id: server?.spanContext().spanId, trace_flags: '01' }),
      expect.objectContaining({ trace_id: LOW_TRACE, span_id: expect.any(String), trace_flags: '00' }),
    ]);
  }, 60_000);

  it("at parentbased_traceidratio 0: every sampled caller's request, as a trusted proxy decided", async () => {
    const { app, tracing } = await servedUnder({
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0',
    });
    await sendSampledLowTraces(app);
    expect(tracing.named('GET /healthz')).toHaveLength(REQUESTS);
    // Without a caller's decision, the ratio: none.
    expect((await request(app.app).get('/healthz')).status).toBe(200);
    expect(tracing.named('GET /healthz')).toHaveLength(REQUESTS);
  }, 60_000);
});
