// What a log line carries of its trace, named as OpenTelemetry's log data model and its pino
// instrumentation name them: for the request log (interfaces) and the process's logger
// (infrastructure) alike, which is why it sits beside both.
import type { SpanContext } from '@opentelemetry/api';

export interface TraceLogFields {
  readonly trace_id: string;
  readonly span_id: string;
  /** Two hex digits, as in a `traceparent`: `01` sampled (its spans exported), `00` not. */
  readonly trace_flags: string;
}

export function traceLogFields({ traceId, spanId, traceFlags }: SpanContext): TraceLogFields {
  return { trace_id: traceId, span_id: spanId, trace_flags: traceFlags.toString(16).padStart(2, '0') };
}
