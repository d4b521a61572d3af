// Tracing is off unless an operator configures an exporter: a service deployed without a collector
// must not send spans into a refused connection, nor load the SDK.
import { AlwaysOffSampler } from '@opentelemetry/sdk-trace';
import { traceIdsOfLogLine, tracingConfigured } from '../../../src/infrastructure/telemetry/tracing';
import { startInMemoryTracing } from '../../support/telemetry/in-memory-tracing';

it.each([
  [{}, false],
  [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, true],
  [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }, true],
  [{ OTEL_TRACES_EXPORTER: 'otlp' }, true],
  [{ OTEL_TRACES_EXPORTER: 'console' }, true],
  [{ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, false],
  [{ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, false],
  [{ OTEL_SDK_DISABLED: 'false', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, true],
  [{ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' }, false],
  // Only the metrics' or the logs' endpoint: this service exports neither over OTLP.
  [{ OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://collector:4318/v1/metrics' }, false],
])('%j: tracing %s', (env, on) => {
  expect(tracingConfigured(env)).toBe(on);
});

// pino's mixin: each line logged in a span names its trace, and whether it was sampled (kept).
it.each([
  ['sampled', undefined, '01'],
  ['not sampled', new AlwaysOffSampler(), '00'],
])('gives a line logged in a span %s its trace_id, span_id and trace_flags', async (_case, sampler, flags) => {
  const tracing = startInMemoryTracing({ sampler });
  try {
    expect(traceIdsOfLogLine()).toEqual({});
    tracing.tracer.startActiveSpan('work', (span) => {
      const { traceId, spanId } = span.spanContext();
      expect(traceIdsOfLogLine()).toEqual({ trace_id: traceId, span_id: spanId, trace_flags: flags });
      span.end();
    });
  } finally {
    await tracing.close();
  }
});
