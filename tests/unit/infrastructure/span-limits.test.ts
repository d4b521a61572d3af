// A span keeps at most a few KiB of any attribute value, whatever a client sends
// (OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT overrides the default), and the value it keeps is its own
// string, not a view into the client's whole one.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ROOT_CONTEXT, SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { DetachedValues } from '../../../src/infrastructure/telemetry/detached-values';
import { DEFAULT_ATTRIBUTE_VALUE_LENGTH, spanLimitsFromEnv } from '../../../src/infrastructure/telemetry/span-limits';

const noWarning = (message: string) => {
  throw new Error(`unexpected warning: ${message}`);
};

describe('the attribute value length', () => {
  it('is a few KiB by default', () => {
    expect(spanLimitsFromEnv({}, noWarning)).toEqual({ attributeValueLengthLimit: DEFAULT_ATTRIBUTE_VALUE_LENGTH });
    expect(DEFAULT_ATTRIBUTE_VALUE_LENGTH).toBeLessThanOrEqual(4096);
  });

  it.each([
    [{ OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: '256' }, 256],
    [{ OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: '65536' }, 65536],
    // The span's own variable first, as OpenTelemetry reads them.
    [{ OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT: '512', OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: '256' }, 512],
  ])('%j: %d characters', (env, limit) => {
    expect(spanLimitsFromEnv(env, noWarning)).toEqual({ attributeValueLengthLimit: limit });
  });

  it.each([
    [{ OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: 'lots' }, DEFAULT_ATTRIBUTE_VALUE_LENGTH],
    [{ OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: '0' }, DEFAULT_ATTRIBUTE_VALUE_LENGTH],
    [{ OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT: '-1', OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: '300' }, 300],
  ])('%j: a warning, and %d characters', (env, limit) => {
    const warnings: string[] = [];
    expect(spanLimitsFromEnv(env, (message) => warnings.push(message))).toEqual({ attributeValueLengthLimit: limit });
    expect(warnings).toEqual([expect.stringMatching(/is not a positive whole number/)]);
  });
});

describe('a span under the limit', () => {
  const userAgent = `Mozilla/5.0 ${'x'.repeat(15 * 1024)}`;

  function tracing(limit: number) {
    const exporter = new InMemorySpanExporter();
    const provider = new TracerProvider({
      spanLimits: { attributeValueLengthLimit: limit },
      spanProcessors: [new DetachedValues(limit), new SimpleSpanProcessor({ exporter })],
    });
    return { exporter, provider };
  }

  async function endedWith(attributes: Record<string, string>, limit: number) {
    const { exporter, provider } = tracing(limit);
    const span = provider.getTracer('test').startSpan('GET /healthz', { kind: SpanKind.SERVER }, ROOT_CONTEXT);
    span.setAttributes(attributes);
    span.end();
    await provider.forceFlush();
    const kept = exporter.getFinishedSpans()[0]?.attributes ?? {};
    await provider.shutdown();
    return kept;
  }

  it('keeps the first characters of a 15 KB User-Agent, and the short values whole', async () => {
    const kept = await endedWith(
      { 'user_agent.original': userAgent, 'url.path': '/healthz', 'db.query.text': 'é'.repeat(5000) },
      DEFAULT_ATTRIBUTE_VALUE_LENGTH,
    );
    expect(kept['user_agent.original'] === userAgent.slice(0, DEFAULT_ATTRIBUTE_VALUE_LENGTH)).toBe(true);
    expect(kept['url.path']).toBe('/healthz');
    // Text beyond Latin-1 is cut and copied whole too.
    expect(kept['db.query.text'] === 'é'.repeat(DEFAULT_ATTRIBUTE_VALUE_LENGTH)).toBe(true);
  });

  it('keeps as many characters as the limit an operator set', async () => {
    const kept = await endedWith({ 'user_agent.original': userAgent }, 100);
    expect(kept['user_agent.original']).toBe(`Mozilla/5.0 ${'x'.repeat(88)}`);
  });

  it('keeps no more of a cut value than the limit: 2,000 waiting spans hold 4 KiB of each 15 KB agent', async () => {
    setFlagsFromString('--expose-gc');
    const collectGarbage = runInNewContext('gc') as () => void;
    const { exporter, provider } = tracing(DEFAULT_ATTRIBUTE_VALUE_LENGTH);
    const tracer = provider.getTracer('test');
    collectGarbage();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 2_000; i++) {
      // A string of its own each, as each request's header is.
      const span = tracer.startSpan('GET /healthz', { kind: SpanKind.SERVER }, ROOT_CONTEXT);
      span.setAttribute('user_agent.original', `${i} ${userAgent}`);
      span.end();
    }
    collectGarbage();
    const held = process.memoryUsage().heapUsed - before;
    expect(exporter.getFinishedSpans()).toHaveLength(2_000);
    // Some 10 MB: the kept 4 KiB and the span itself. The whole values would be 31 MB more.
    expect(held).toBeLessThan(2_000 * 8 * 1024);
    await provider.shutdown();
  });
});
