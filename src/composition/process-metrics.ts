import cluster from 'node:cluster';
import type { Registry } from 'prom-client';
import type { Config } from '../config';
import { answerPrimary } from '../infrastructure/metrics/cluster-metrics';
import { DatabaseMetrics } from '../infrastructure/metrics/database-metrics';
import { createMetricsRegistry } from '../infrastructure/metrics/metrics-registry';
import { countProcessedSpans } from '../infrastructure/metrics/tracing-metrics';
import { WebhookMetrics } from '../infrastructure/metrics/webhook-metrics';
import type { Tracing } from '../infrastructure/telemetry/tracing';

/** This process's metrics registry, its database's timings and its webhooks', all absent when METRICS_PORT is unset. */
export interface ProcessMetrics {
  readonly registry: Registry | undefined;
  readonly database: DatabaseMetrics | undefined;
  readonly webhooks: WebhookMetrics | undefined;
}

/**
 * The process's metrics when an operator scrapes them: this process's own listener, or its
 * primary's, which gathers every worker's (cluster-primary.ts). A worker answers the primary from
 * the start, before its database is open, so that a scrape does not wait for a worker starting.
 */
export function wireProcessMetrics(config: Config, tracing: Tracing | undefined): ProcessMetrics {
  const registry = config.metricsPort === undefined ? undefined : createMetricsRegistry(workerSlot());
  if (registry && cluster.isWorker) answerPrimary(registry);
  const database = registry && new DatabaseMetrics(registry);
  if (registry && tracing) countProcessedSpans(registry, tracing);
  return { registry, database, webhooks: registry && new WebhookMetrics(registry) };
}

/** A cluster worker's slot (WORKER_SLOT, set by its primary; the same across restarts), else none. */
function workerSlot(): string | undefined {
  return cluster.isWorker ? process.env.WORKER_SLOT : undefined;
}
