import { type Link, ROOT_CONTEXT, type Span, type SpanContext, SpanKind, trace, type Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { SseMessage } from './event-stream-source';

const w3c = new W3CTraceContextPropagator();
const getter = { get: (carrier: Record<string, string>, key: string) => carrier[key], keys: Object.keys };

/**
 * A span for each change an event stream delivers, in whichever process holds the stream: a child
 * of the span of the request that wrote the change (its trace kept with the event, in the writer's
 * statement), so that one trace shows a write reaching each of its watchers, and linked both to
 * that span and to the stream's own request. A change whose writer was not traced gets none.
 */
export class DeliverySpans {
  constructor(private readonly tracer: Tracer) {}

  /** The span of `message` being written, or undefined; the caller ends it once written. */
  start(message: SseMessage, stream: SpanContext | undefined): Span | undefined {
    if (!message.origin) return undefined;
    const writer = trace.getSpanContext(w3c.extract(ROOT_CONTEXT, { traceparent: message.origin }, getter));
    if (!writer) return undefined;
    const links: Link[] = [{ context: writer }, ...(stream ? [{ context: stream }] : [])];
    return this.tracer.startSpan(
      `deliver ${message.event}`,
      { kind: SpanKind.PRODUCER, links, attributes: { 'tns.event_stream.event': message.event } },
      trace.setSpanContext(ROOT_CONTEXT, writer),
    );
  }
}
