// WEB_CONCURRENCY > 1: at each scrape the primary asks every worker for its metrics over the IPC
// channel node:cluster gives them, and prom-client's AggregatorRegistry.aggregate makes them one
// exposition. Asked here rather than through prom-client's own clusterMetrics(), which fails the
// whole scrape when one worker does not answer (one that is dying or starting) and keeps what the
// others answered to it: a worker that is late is left out of that scrape, and nothing is kept.
import type { Worker } from 'node:cluster';
import { AggregatorRegistry, Registry } from 'prom-client';
import { hasType } from '../../worker-messages';

/** One process's metrics as registry.getMetricsAsJSON() gives them, which aggregate() takes. */
type ProcessMetrics = Awaited<ReturnType<Registry['getMetricsAsJSON']>>;

/** A worker is not waited for longer than this; Prometheus's default scrape timeout is 10 s. */
const WORKER_ANSWER_MS = 2_000;

interface MetricsAsk {
  readonly type: 'metrics-ask';
  readonly id: number;
}

interface MetricsAnswer {
  readonly type: 'metrics';
  readonly id: number;
  readonly metrics: ProcessMetrics;
}

function isMetricsAsk(message: unknown): message is MetricsAsk {
  return hasType(message, 'metrics-ask');
}

function isMetricsAnswer(message: unknown): message is MetricsAnswer {
  return hasType(message, 'metrics');
}

/** In a worker: answers its primary's asks with this process's metrics. */
export function answerPrimary(registry: Registry, channel: NodeJS.Process = process): void {
  channel.on('message', (message: unknown) => {
    if (!isMetricsAsk(message)) return;
    void registry.getMetricsAsJSON().then((metrics) => {
      if (channel.connected)
        channel.send?.({ type: 'metrics', id: message.id, metrics }, undefined, {}, () => undefined);
    });
  });
}

/** A worker as the primary sees it. */
type WorkerEnd = Pick<Worker, 'send' | 'isConnected' | 'on' | 'off'>;

/**
 * In a cluster's primary: its own metrics (`own`: its process's, labelled worker="primary") and
 * those of every worker that answers in time, at each scrape.
 */
export function clusterMetrics(
  workers: () => readonly WorkerEnd[],
  own: Registry,
): {
  readonly contentType: string;
  metrics(): Promise<string>;
} {
  let nextId = 0;
  const ask = (worker: WorkerEnd, id: number) =>
    new Promise<ProcessMetrics | null>((resolve) => {
      const timer = setTimeout(() => settle(null), WORKER_ANSWER_MS);
      const heard = (message: unknown) => {
        if (isMetricsAnswer(message) && message.id === id) settle(message.metrics);
      };
      function settle(metrics: ProcessMetrics | null): void {
        clearTimeout(timer);
        worker.off('message', heard);
        resolve(metrics);
      }
      worker.on('message', heard);
      // Without a callback, a send on a channel closing now is an 'error' event (cluster-primary.ts logs it).
      worker.send({ type: 'metrics-ask', id }, undefined, () => undefined);
    });
  return {
    contentType: Registry.PROMETHEUS_CONTENT_TYPE,
    async metrics() {
      const id = nextId++;
      const primary = own.getMetricsAsJSON();
      const answers = await Promise.all(
        workers()
          .filter((worker) => worker.isConnected())
          .map((worker) => ask(worker, id)),
      );
      return AggregatorRegistry.aggregate([await primary, ...answers.filter((each) => each !== null)]).metrics();
    },
  };
}
