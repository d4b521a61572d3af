import { type Context, type Link, type Span, type SpanContext, SpanKind, type Tracer } from '@opentelemetry/api';
import { keptSpanContext } from '../../../kept-span-context';
import type { SseMessage } from './event-stream-source';

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
    // None kept, or kept unsampled: the span would record nothing, so it is not even made.
    const writer = keptSpanContext(message.origin);
    if (!writer) return undefined;
    // The writer is the parent already; a link to it would say it twice.
    const links: Link[] = stream ? [{ context: stream }] : [];
    return this.tracer.startSpan(
      `deliver ${message.event}`,
      { kind: SpanKind.PRODUCER, links, attributes: { 'tns.event_stream.event': message.event } },
      this.keptContext(writer),
    );
  }
}
