import type { Tracer } from '@opentelemetry/api';
import type { AbstractNewable, Container, Newable } from 'inversify';
import type { Ports } from './tokens';
import { withUseCaseSpans } from './use-case-spans';

/** The tokens of the ports that can stand in for a `T`. */
type PortToken<T> = keyof Ports & { [S in keyof Ports]: Ports[S] extends T ? S : never }[keyof Ports];

/** Where the container finds a constructor's parameter of type `T`: a port's token or a bound class. */
type Dependency<T> = PortToken<T> | Newable<T> | AbstractNewable<T>;

/**
 * A function that binds a core class (a use case) of `container` to a factory that calls its
 * constructor with what the container holds for `dependencies`, in order; the core so needs no
 * decorators, and the compiler checks each dependency against the constructor's parameter in its
 * place. With a `tracer`, each use case bound is made a span of it (withUseCaseSpans).
 */
export function coreBinder(container: Container, tracer?: Tracer) {
  return function bindCore<T extends object, A extends unknown[]>(
    core: Newable<T, A>,
    ...dependencies: NoInfer<{ [K in keyof A]-?: Dependency<A[K]> }>
  ): void {
    container
      .bind(core)
      .toResolvedValue(
        (...args: A) => (tracer ? withUseCaseSpans(new core(...args), tracer) : new core(...args)),
        dependencies,
      );
  };
}

/** Binds a port's token to the adapter that serves it. */
export function bindPort<S extends keyof Ports>(container: Container, token: S, adapter: Ports[S]): void {
  container.bind<Ports[S]>(token).toConstantValue(adapter);
}
