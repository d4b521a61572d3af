import { monitorEventLoopDelay } from 'node:perf_hooks';

/**
 * Runs `work` and says how late this process's timers ran meanwhile: the machine's own load (the
 * suite's other workers on the same cores), which delays the service's timers as much. A bound on
 * an answer's time holds on a busy machine, not on one that runs no process for half a second;
 * a test adds this lag to its bound, so it fails on the service, not on the machine.
 */
export async function measuringLag<T>(work: () => Promise<T>): Promise<{ readonly result: T; readonly lagMs: number }> {
  const delays = monitorEventLoopDelay({ resolution: 10 });
  delays.enable();
  try {
    const result = await work();
    return { result, lagMs: delays.max / 1e6 };
  } finally {
    delays.disable();
  }
}
