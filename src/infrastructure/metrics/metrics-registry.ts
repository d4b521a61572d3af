import { AggregatorRegistry, collectDefaultMetrics, Registry } from 'prom-client';

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

/**
 * In a worker of a cluster: answers its primary's requests for this process's metrics, which the
 * primary gathers with its siblings' (prom-client's AggregatorRegistry, whose constructor starts
 * listening), so one scrape covers the instance, each worker's series labelled with its slot.
 */
export function shareWithPrimary(registry: Registry): void {
  AggregatorRegistry.setRegistries(registry);
  new AggregatorRegistry();
}

/** In a cluster's primary: every worker's metrics, gathered at each scrape. */
export function clusterMetrics(): { readonly contentType: string; metrics(): Promise<string> } {
  const aggregator = new AggregatorRegistry();
  return { contentType: aggregator.contentType, metrics: () => aggregator.clusterMetrics() };
}
