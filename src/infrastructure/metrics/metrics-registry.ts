import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * A process's metrics, with prom-client's process and runtime ones (resident memory, heap, event
 * loop delay, garbage collections, open handles): what `GET /metrics` shows of this process, or
 * what it gives the cluster's primary to add up with its siblings' (metrics-server.ts).
 */
export function createMetricsRegistry(workerSlot?: string): Registry {
  const registry = new Registry();
  // Each worker's series apart (`worker`: its slot, kept by its replacement): summed into one,
  // a replaced worker's counts starting again from 0 would read as a reset of the instance's
  // counters, and a saturated worker would hide among its siblings. PromQL sums them.
  if (workerSlot !== undefined) registry.setDefaultLabels({ worker: workerSlot });
  collectDefaultMetrics({ register: registry });
  return registry;
}
