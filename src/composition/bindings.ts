import type { Tracer } from '@opentelemetry/api';
import type { AbstractNewable, Container, Newable } from 'inversify';
import type { Ports } from './tokens';
import { withUseCaseSpans } from './use-case-spans';

/** The tokens of the ports that can stand in for a `T`. */
type PortToken<T> = keyof Ports & { [S in keyof Ports]: Ports[S] extends T ? S : never }[keyof Ports];

/** Where the container finds a constructor's parameter of type `T`: a port's token or a bound class. */
type Dependency<T> = PortToken<T> | Newable<T> | AbstractNewable<T>;

/**
 * Binds a core class (a use case) to a factory that calls its constructor with what the container
 * holds for `dependencies`, in order; the core so needs no decorators, and the compiler checks each
 * dependency against the constructor's parameter in its place.
 */
export function bindCore<T extends object, A extends unknown[]>(
  container: Container,
  core: Newable<T, A>,
  ...dependencies: NoInfer<{ [K in keyof A]-?: Dependency<A[K]> }>
): void {
  const tracer = tracers.get(container);
  container
    .bind(core)
    .toResolvedValue(
      (...args: A) => (tracer ? withUseCaseSpans(new core(...args), tracer) : new core(...args)),
      dependencies,
    );
}

/** The tracer of each container whose use cases are spans (TRACING on: withUseCaseSpans). */
const tracers = new WeakMap<Container, Tracer>();

/** Makes the use cases bound to `container` from now on spans of `tracer`. */
export function traceUseCases(container: Container, tracer: Tracer): void {
  tracers.set(container, tracer);
}

/** Binds a port's token to the adapter that serves it. */
export function bindPort<S extends keyof Ports>(container: Container, token: S, adapter: Ports[S]): void {
  container.bind<Ports[S]>(token).toConstantValue(adapter);
}
