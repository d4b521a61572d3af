// The exporters the service offers (OTEL_TRACES_EXPORTER), each behind a batch processor of its
// own, and the OTEL_BSP_* settings read as OpenTelemetry's Node SDK reads them, with a warning for
// what it cannot use.
import { createNoopMeter } from '@opentelemetry/api';
import { spanProcessorsFromEnv } from '../../../src/infrastructure/telemetry/span-export';

const selfObservation = { getMeter: () => createNoopMeter() };

async function processorsOf(env: Record<string, string>) {
  const warnings: string[] = [];
  const processors = await spanProcessorsFromEnv(env, selfObservation, (message) => warnings.push(message));
  await Promise.all(processors.map((processor) => processor.shutdown()));
  return { count: processors.length, warnings };
}

it.each([
  [{}, 1],
  [{ OTEL_TRACES_EXPORTER: 'otlp' }, 1],
  [{ OTEL_TRACES_EXPORTER: 'otlp, console' }, 2],
  [{ OTEL_TRACES_EXPORTER: 'otlp,otlp' }, 1],
  [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }, 1],
  [{ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }, 1],
  [{ OTEL_BSP_MAX_QUEUE_SIZE: '100', OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '10', OTEL_BSP_SCHEDULE_DELAY: '0' }, 1],
])('%j: batch processors %d, no warning', async (env, count) => {
  expect(await processorsOf(env)).toEqual({ count, warnings: [] });
});

it.each([
  [{ OTEL_TRACES_EXPORTER: 'zipkin' }, 0, /zipkin is not an exporter the service offers/],
  [{ OTEL_TRACES_EXPORTER: 'zipkin,console' }, 1, /zipkin is not an exporter/],
  [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/xml' }, 1, /http\/xml is not an OTLP protocol/],
  [{ OTEL_BSP_MAX_QUEUE_SIZE: 'lots' }, 1, /OTEL_BSP_MAX_QUEUE_SIZE=lots is not a whole number/],
  [{ OTEL_BSP_EXPORT_TIMEOUT: '0' }, 1, /OTEL_BSP_EXPORT_TIMEOUT=0 is not a whole number from 1/],
])('%j: batch processors %d, and a warning', async (env, count, warning) => {
  expect(await processorsOf(env)).toEqual({ count, warnings: [expect.stringMatching(warning)] });
});
