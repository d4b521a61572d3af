import { diag, type DiagLogger, DiagLogLevel, trace, type Tracer } from '@opentelemetry/api';
import { setGlobalErrorHandler } from '@opentelemetry/core';
import type { Logger } from 'pino';
import { DetachedValues } from './detached-values';
import { samplerFromEnv } from './sampling';
import { spanProcessorsFromEnv } from './span-export';
import { spanLimitsFromEnv } from './span-limits';
import { SpanLossLog } from './span-loss-log';
import { type ProcessedSpans, SpanOutcomes } from './span-outcomes';
import { type TraceLogFields, traceLogFields } from '../../trace-log-fields';
import { SERVICE_NAME } from './service-name';

type Environment = Readonly<Record<string, string | undefined>>;

/**
 * Tracing is off unless an operator points it somewhere: an OTLP endpoint, or an exporter named
 * (OpenTelemetry's own SDK defaults to an OTLP collector on localhost, which would send every
 * installation's spans into a connection refused). OTEL_SDK_DISABLED and `none` turn it off.
 */
export function tracingConfigured(env: Environment): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporters = env.OTEL_TRACES_EXPORTER?.split(',').map((name) => name.trim().toLowerCase()) ?? [];
  if (exporters.includes('none')) return false;
  return (
    exporters.some((name) => name !== '') ||
    Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim()) ||
    Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim())
  );
}

/** A running SDK: its tracer, what became of its spans; flush its spans and stop it when the process stops. */
export interface Tracing extends ProcessedSpans {
  readonly tracer: Tracer;
  /** Never rejects, and settles within TRACING_SHUTDOWN_MS: a failed export is logged, not thrown. */
  shutdown(): Promise<void>;
}

/**
 * The longest a stop waits for the last spans to leave. The OTLP exporter waits 10 s for a collector
 * by default, as long as the whole shutdown grace: a collector that is down must not hold the exit.
 */
export const TRACING_SHUTDOWN_MS = 2_000;

/**
 * Runs `shutdown` for at most `timeoutMs`. A stop that fails (the SDK rejects when its last export
 * does) or takes too long costs some spans, never the exit code of a clean stop: a warning says so.
 */
export async function shutdownWithin(
  shutdown: () => Promise<void>,
  logger: Pick<Logger, 'warn'>,
  timeoutMs: number,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), timeoutMs);
  });
  try {
    const outcome = await Promise.race([shutdown().then(() => 'done' as const), late]);
    if (outcome === 'late')
      logger.warn(`OpenTelemetry: the last spans were not exported within ${timeoutMs} ms of the stop; left behind`);
  } catch (error) {
    logger.warn({ err: error }, 'OpenTelemetry: the last spans could not be exported at the stop');
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `trace_id`, `span_id` and `trace_flags` of the span current where a line is logged, for pino's
 * `mixin`: a log line found in the logs leads to its trace (when its flags say it was sampled), and
 * a trace to its lines. Nothing outside a span.
 */
export function traceIdsOfLogLine(): Partial<TraceLogFields> {
  const span = trace.getActiveSpan();
  return span ? traceLogFields(span.spanContext()) : {};
}

/**
 * Starts OpenTelemetry's Node SDK for traces only, configured by the standard OTEL_* variables
 * (exporter and protocol, endpoint, headers, timeout, sampler, propagators, resource, batch
 * processor, span limits): the service's spans are made by hand at a few places
 * (docs/operations.md, "Traces"), so no instrumentation is loaded. Its metrics are Prometheus's
 * (METRICS_PORT) and its logs are lines on stdout, so the SDK's metric and log exporters stay off.
 * Called only when tracingConfigured(env): a service without tracing loads none of the SDK.
 *
 * What tracing may hold is bounded whatever clients send and however slow the collector: attribute
 * values by span-limits.ts, spans waiting by the batch processor's queue, exports in flight by
 * span-export.ts, each export by its timeout; the sampler is the service's own (sampling.ts). What
 * it drops is counted (`processedSpans`) and said at most once a minute (SpanLossLog).
 */
export async function startTracing(env: Environment, logger: Logger): Promise<Tracing> {
  const warn = (message: string) => logger.warn(`OpenTelemetry: ${message}`);
  diag.setLogger(sdkDiagnostics(logger), { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true });
  const losses = new SpanLossLog(logger);
  // The batch processors hand their failed exports to the global handler: counted and said with the
  // spans lost, not a line each.
  setGlobalErrorHandler(losses.exportFailed);
  const outcomes = new SpanOutcomes(losses.spansLost);
  const { NodeSDK } = await import('@opentelemetry/sdk-node');
  const named =
    Boolean(env.OTEL_SERVICE_NAME?.trim()) || /(^|,)\s*service\.name\s*=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? '');
  const spanLimits = spanLimitsFromEnv(env, warn);
  const sdk = new NodeSDK({
    ...(!named && { serviceName: SERVICE_NAME }),
    sampler: samplerFromEnv(env, warn),
    spanLimits,
    spanProcessors: [
      new DetachedValues(spanLimits.attributeValueLengthLimit),
      ...(await spanProcessorsFromEnv(env, outcomes.meterProvider(), warn)),
    ],
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [],
  });
  sdk.start();
  return {
    tracer: trace.getTracer(SERVICE_NAME),
    processedSpans: () => outcomes.processedSpans(),
    shutdown: () => shutdownWithin(() => sdk.shutdown(), logger, TRACING_SHUTDOWN_MS),
  };
}

/**
 * The SDK's own complaints (a setting it cannot read) as the service's log lines, but for the
 * batch processor's "Dropped N spans because maxQueueSize reached", which comes
 * each time its queue takes a span again after a loss: those spans are counted and said by
 * SpanLossLog, at most once a minute.
 */
function sdkDiagnostics(logger: Logger): DiagLogger {
  const dropped = /because maxQueueSize reached/;
  return {
    error: (message, ...args) => logger.error({ args }, `OpenTelemetry: ${message}`),
    warn: (message, ...args) => {
      if (!dropped.test(message)) logger.warn({ args }, `OpenTelemetry: ${message}`);
    },
    info: () => undefined,
    debug: () => undefined,
    verbose: () => undefined,
  };
}
