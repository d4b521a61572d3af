import 'reflect-metadata';
import { Container } from 'inversify';
import type { WallClock } from '../../../src/core/ports/wall-clock';
import { bindPort, coreBinder } from '../../../src/composition/bindings';
import { idGenerator, wallClock } from '../../../src/composition/tokens';

class Greeting {
  constructor(readonly clock: WallClock) {}
}

class Stamped {
  constructor(
    readonly greeting: Greeting,
    readonly clock: WallClock,
  ) {}
}

describe('coreBinder and bindPort', () => {
  it('build a core class once, from its dependencies in the order given', () => {
    const container = new Container({ defaultScope: 'Singleton' });
    const clock: WallClock = { now: () => new Date('2000-01-01T00:00:00Z') };
    bindPort(container, wallClock, clock);
    const bindCore = coreBinder(container);
    bindCore(Greeting, wallClock);
    bindCore(Stamped, Greeting, wallClock);

    const stamped = container.get(Stamped);
    expect(stamped.clock).toBe(clock);
    expect(stamped.greeting).toBe(container.get(Greeting));
    expect(stamped.greeting.clock).toBe(clock);
    expect(container.get(Stamped)).toBe(stamped);
  });
});

// Checked by the compiler (npm run typecheck, and ts-jest), never run: each binding must be refused.
function refusedBindings(container: Container): void {
  const bindCore = coreBinder(container);
  // @ts-expect-error the dependencies in the wrong order
  bindCore(Stamped, wallClock, Greeting);
  // @ts-expect-error a dependency missing
  bindCore(Stamped, Greeting);
  // @ts-expect-error a port that is not the parameter's
  bindCore(Greeting, idGenerator);
  // @ts-expect-error an adapter that does not serve its port
  bindPort(container, idGenerator, { now: () => new Date() });
}
void refusedBindings;
