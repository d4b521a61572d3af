import {
  type Context,
  type Link,
  ROOT_CONTEXT,
  type Span,
  type SpanContext,
  SpanKind,
  trace,
  TraceFlags,
  type Tracer,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { SseMessage } from './event-stream-source';

const w3c = new W3CTraceContextPropagator();
const getter = { get: (carrier: Record<string, string>, key: string) => carrier[key], keys: Object.keys };

/**
 * A span for each change an event stream delivers, in whichever process holds the stream: a child
 * of the span of the request that wrote the change (its trace kept with the event, in the writer's
 * statement), so that one trace shows a write reaching each of its watchers, and linked to the
 * stream's own request. A change whose writer was not traced, or not sampled, gets none: a delivery
 * follows its writer's sampling decision.
 */
export class DeliverySpans {
  /**
   * `keptContext`: the context to start a delivery in, under its writer's span context. The
   * service's sampler draws for a caller's context; the writer's is the service's own, read back
   * from the event, and its decision is followed (sampling.ts, keptTraceContext).
   */
  constructor(
    private readonly tracer: Tracer,
    private readonly keptContext: (writer: SpanContext) => Context,
  ) {}

  /** The span of `message` being written, or undefined; the caller ends it once written. */
  start(message: SseMessage, stream: SpanContext | undefined): Span | undefined {
    if (!message.origin) return undefined;
    const writer = trace.getSpanContext(w3c.extract(ROOT_CONTEXT, { traceparent: message.origin }, getter));
    // Unsampled, the span would record nothing: not even made.
    if (!writer || (writer.traceFlags & TraceFlags.SAMPLED) === 0) return undefined;
    // The writer is the parent already; a link to it would say it twice.
    const links: Link[] = stream ? [{ context: stream }] : [];
    return this.tracer.startSpan(
      `deliver ${message.event}`,
      { kind: SpanKind.PRODUCER, links, attributes: { 'tns.event_stream.event': message.event } },
      this.keptContext(writer),
    );
  }
}
