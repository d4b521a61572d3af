import { context, trace, TraceFlags } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';

/**
 * Trace contexts kept with data as W3C `traceparent` text, whatever propagators the requests use
 * (OTEL_PROPAGATORS): the one form every OpenTelemetry SDK reads (read back by keptSpanContext,
 * kept-span-context.ts).
 */
const w3c = new W3CTraceContextPropagator();
const setter = {
  set: (carrier: Record<string, string>, key: string, value: string) => {
    carrier[key] = value;
  },
};

/**
 * The `traceparent` of the span running now, or null when none is (tracing off, or outside a
 * request) or it is not sampled: a delivery follows its writer's decision (delivery-spans.ts), so
 * an unsampled writer's context would only be stored to be read and dropped.
 */
export function activeTraceparent(): string | null {
  const active = context.active();
  const span = trace.getSpan(active);
  if (!span || (span.spanContext().traceFlags & TraceFlags.SAMPLED) === 0) return null;
  const carrier: Record<string, string> = {};
  w3c.inject(active, carrier, setter);
  return carrier.traceparent ?? null;
}
