import { AggregatorRegistry, collectDefaultMetrics, Registry } from 'prom-client';

/**
 * A process's metrics, with prom-client's process and runtime ones (resident memory, heap, event
 * loop delay, garbage collections, open handles): what `GET /metrics` shows of this process, or
 * what it gives the cluster's primary to add up with its siblings' (metrics-server.ts).
 */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

/**
 * In a worker of a cluster: answers its primary's requests for this process's metrics, which the
 * primary adds up with its siblings' (prom-client's AggregatorRegistry, whose constructor starts
 * listening), so one scrape covers the instance and its counts add up exactly.
 */
export function shareWithPrimary(registry: Registry): void {
  AggregatorRegistry.setRegistries(registry);
  new AggregatorRegistry();
}

/** In a cluster's primary: every worker's metrics, added up, at each scrape. */
export function clusterMetrics(): { readonly contentType: string; metrics(): Promise<string> } {
  const aggregator = new AggregatorRegistry();
  return { contentType: aggregator.contentType, metrics: () => aggregator.clusterMetrics() };
}
