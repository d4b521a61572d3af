import { type Span, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';
import { DomainError } from '../core/domain/errors';

type Method = (...args: unknown[]) => unknown;

/** A use case's entry points: `execute`, and `open` for the one that starts a watch (WatchEvents). */
const ENTRY_POINTS = ['execute', 'open'];

/**
 * Makes each entry point of a use case a span of its own, named after the use case (`Travel`,
 * or `WatchEvents.open` for a method other than `execute`), child of the request's span: a trace
 * shows which use case its statements belong to. Done here, so the core knows nothing of tracing.
 * An expected refusal (a domain error) names its code in `error.type` without marking the span
 * failed; anything else marks it failed.
 */
export function withUseCaseSpans<T extends object>(useCase: T, tracer: Tracer): T {
  const prototype: object | null = Object.getPrototypeOf(useCase);
  if (!prototype) return useCase;
  const name = prototype.constructor.name;
  for (const method of ENTRY_POINTS) {
    const original: unknown = Reflect.get(prototype, method);
    if (typeof original !== 'function') continue;
    const spanName = method === 'execute' ? name : `${name}.${method}`;
    const run = original as Method;
    Object.defineProperty(useCase, method, {
      value: (...args: unknown[]) =>
        tracer.startActiveSpan(spanName, (span) => {
          try {
            const result = run.apply(useCase, args);
            if (!(result instanceof Promise)) return ended(span, result);
            return result.then(
              (value: unknown) => ended(span, value),
              (error: unknown) => failed(span, error),
            );
          } catch (error) {
            return failed(span, error);
          }
        }),
    });
  }
  return useCase;
}

function ended<T>(span: Span, value: T): T {
  span.end();
  return value;
}

function failed(span: Span, error: unknown): never {
  // An unsampled span records nothing: naming the error would be work for nothing.
  if (!span.isRecording()) {
    span.end();
    throw error;
  }
  if (error instanceof DomainError) span.setAttribute(ATTR_ERROR_TYPE, error.code);
  else {
    span.setAttribute(ATTR_ERROR_TYPE, error instanceof Error ? error.constructor.name : 'Error');
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
  }
  span.end();
  throw error;
}
