// A writer's trace read back from the `traceparent` kept with its data (trace-context.ts writes
// it): for the event streams' delivery spans (interfaces) and the webhook attempts' spans
// (infrastructure) alike, which is why it sits beside both.
import { ROOT_CONTEXT, type SpanContext, trace, TraceFlags } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';

const w3c = new W3CTraceContextPropagator();
const getter = { get: (carrier: Record<string, string>, key: string) => carrier[key], keys: Object.keys };

/**
 * The span context a kept `traceparent` names, when it is one that was sampled; undefined for
 * none, for text that is no traceparent, and for an unsampled one (a span following or linking it
 * would record what nobody keeps).
 */
export function keptSpanContext(traceparent: string | null | undefined): SpanContext | undefined {
  if (!traceparent) return undefined;
  const kept = trace.getSpanContext(w3c.extract(ROOT_CONTEXT, { traceparent }, getter));
  return kept && (kept.traceFlags & TraceFlags.SAMPLED) !== 0 ? kept : undefined;
}
