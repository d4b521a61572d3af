import { StopSignals } from '../../src/stop-signals';

describe('StopSignals', () => {
  const listeners = () => ({ SIGINT: process.listenerCount('SIGINT'), SIGTERM: process.listenerCount('SIGTERM') });
  let before: ReturnType<typeof listeners>;
  beforeEach(() => {
    before = listeners();
  });
  afterEach(() => {
    // Each test's instance removed: Jest's own process must keep its default handling.
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      for (const listener of process.listeners(signal).slice(before[signal])) process.off(signal, listener);
    }
  });

  it('stops once, at the first signal, and only says the later ones', () => {
    const repeats: string[] = [];
    const signals = new StopSignals((signal, first) => repeats.push(`${signal} after ${first}`));
    const stops: string[] = [];
    signals.whenStopped((signal) => stops.push(signal));

    process.emit('SIGINT', 'SIGINT');
    process.emit('SIGINT', 'SIGINT');
    process.emit('SIGTERM', 'SIGTERM');

    expect(stops).toEqual(['SIGINT']);
    expect(repeats).toEqual(['SIGINT after SIGINT', 'SIGTERM after SIGINT']);
    expect(listeners()).toEqual({ SIGINT: before.SIGINT + 1, SIGTERM: before.SIGTERM + 1 });
  });

  it('keeps a signal heard before the stop is known, and runs the stop when it is', () => {
    const signals = new StopSignals(() => undefined);
    process.emit('SIGTERM', 'SIGTERM');
    expect(signals.received).toBe('SIGTERM');
    const stops: string[] = [];
    signals.whenStopped((signal) => stops.push(signal));
    expect(stops).toEqual(['SIGTERM']);
  });

  it('hands a stop over: the start cancelled first, then, once started, the stop itself', () => {
    const signals = new StopSignals(() => undefined);
    const calls: string[] = [];
    signals.whenStopped(() => calls.push('cancel the start'));
    signals.whenStopped(() => calls.push('stop'));
    signals.hear('SIGINT');
    expect(calls).toEqual(['stop']);
  });
});
