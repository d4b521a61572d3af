// Tracing is off unless an operator configures an exporter: a service deployed without a collector
// must not send spans into a refused connection, nor load the SDK.
import { tracingConfigured } from '../../../src/infrastructure/telemetry/tracing';

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
