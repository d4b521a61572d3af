import type { MeterProvider } from '@opentelemetry/api';
import {
  BatchSpanProcessor,
  type BatchSpanProcessorOptions,
  ConsoleSpanExporter,
  type SpanExporter,
} from '@opentelemetry/sdk-trace';

type Environment = Readonly<Record<string, string | undefined>>;

/**
 * Exports to a collector in flight at once, whatever the batch processor asks. It means one, but
 * after a failed export it loses count (its `_isExporting` is cleared by the failure's handler
 * once the next export has started) and starts another each time a batch is full, until the
 * exporter's own limit (30 by default) is reached: 30 batches of spans and their encoded bodies,
 * where one was meant. A batch refused here is counted as lost (`error.type` `Error`).
 */
export const EXPORTS_IN_FLIGHT = 1;

/**
 * The span processors of the exporters OTEL_TRACES_EXPORTER names (default `otlp`): a batch
 * processor each, configured by the OTEL_BSP_* variables as OpenTelemetry's Node SDK would (its
 * queue bounded by OTEL_BSP_MAX_QUEUE_SIZE, 2,048 spans by default), and reporting what became of
 * its spans to `selfObservation`. The OTLP exporter reads its endpoint, headers, timeout and compression
 * from the OTEL_EXPORTER_OTLP_* variables itself; the service sets only how many exports may be in
 * flight. `zipkin` is not offered: its exporter neither bounds its exports in flight nor times them out.
 */
export async function spanProcessorsFromEnv(
  env: Environment,
  selfObservation: MeterProvider,
  warn: (message: string) => void,
): Promise<BatchSpanProcessor[]> {
  const names = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  const options = batchOptions(env, warn);
  const processors: BatchSpanProcessor[] = [];
  for (const name of new Set(names.length > 0 ? names : ['otlp'])) {
    const exporter = await exporterNamed(name, env, warn);
    if (exporter)
      processors.push(new BatchSpanProcessor({ ...options, exporter, selfObsMeterProvider: selfObservation }));
  }
  return processors;
}

async function exporterNamed(
  name: string,
  env: Environment,
  warn: (message: string) => void,
): Promise<SpanExporter | undefined> {
  if (name === 'console') return new ConsoleSpanExporter();
  if (name !== 'otlp') {
    warn(`OTEL_TRACES_EXPORTER=${name} is not an exporter the service offers (otlp, console); left out`);
    return undefined;
  }
  const limits = { concurrencyLimit: EXPORTS_IN_FLIGHT };
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? '').trim();
  switch (protocol) {
    case 'http/json':
      return new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter(limits);
    case 'grpc':
      return new (await import('@opentelemetry/exporter-trace-otlp-grpc')).OTLPTraceExporter(limits);
    case '':
    case 'http/protobuf':
      return new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter(limits);
    default:
      warn(`OTEL_EXPORTER_OTLP_PROTOCOL=${protocol} is not an OTLP protocol; http/protobuf is used`);
      return new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter(limits);
  }
}

/** The OTEL_BSP_* variables; one unset or not a whole number leaves the SDK's default. */
function batchOptions(env: Environment, warn: (message: string) => void): Omit<BatchSpanProcessorOptions, 'exporter'> {
  const read = (name: string, atLeast: number): number | undefined => {
    const text = env[name]?.trim();
    if (!text) return undefined;
    const value = Number(text);
    if (Number.isSafeInteger(value) && value >= atLeast) return value;
    warn(`${name}=${text} is not a whole number from ${atLeast}; OpenTelemetry's default is used`);
    return undefined;
  };
  return {
    maxQueueSize: read('OTEL_BSP_MAX_QUEUE_SIZE', 1),
    maxExportBatchSize: read('OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 1),
    scheduledDelayMillis: read('OTEL_BSP_SCHEDULE_DELAY', 0),
    exportTimeoutMillis: read('OTEL_BSP_EXPORT_TIMEOUT', 1),
  };
}
