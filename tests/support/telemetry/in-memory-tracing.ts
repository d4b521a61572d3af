// Spans kept in memory, for tests that run the service's code in-process: OpenTelemetry's own SDK
// with its in-memory exporter, and the context manager and propagator the Node SDK registers
// (AsyncLocalStorage; W3C trace context), so parents follow awaits and a caller's `traceparent` is
// read as in the service.
import { context, propagation, type Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  type Sampler,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';

export interface InMemoryTracing {
  readonly tracer: Tracer;
  /** The spans ended so far, in the order they ended. */
  spans(): ReadableSpan[];
  named(name: string): ReadableSpan[];
  close(): Promise<void>;
}

/** `sampler`: the service's (sampling.ts), say; OpenTelemetry's default (parent-based, always on) otherwise. */
export function startInMemoryTracing(options: { readonly sampler?: Sampler } = {}): InMemoryTracing {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({
    sampler: options.sampler,
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
  });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const spans = () => exporter.getFinishedSpans();
  return {
    tracer: provider.getTracer('test'),
    spans,
    named: (name) => spans().filter((span) => span.name === name),
    async close() {
      await provider.shutdown();
      context.disable();
      propagation.disable();
    },
  };
}

/** The id of a span's parent, or '' for a root. */
export function parentOf(span: ReadableSpan): string {
  return span.parentSpanContext?.spanId ?? '';
}
