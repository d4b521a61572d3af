// WEB_CONCURRENCY > 1: at each scrape the primary asks every worker for its metrics over the IPC
// channel node:cluster gives them, and prom-client's AggregatorRegistry.aggregate makes them one
// exposition. Asked here rather than through prom-client's own clusterMetrics(), which fails the
// whole scrape when one worker does not answer (one that is dying or starting) and keeps what the
// others answered to it: a worker that is late is left out of that scrape, and nothing is kept.
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

/** A worker's metrics, or why it could not collect them (`failed`: the error's message). */
type MetricsAnswer =
  | { readonly type: 'metrics'; readonly id: number; readonly metrics: ProcessMetrics }
  | { readonly type: 'metrics'; readonly id: number; readonly failed: string };

function isMetricsAsk(message: unknown): message is MetricsAsk {
  return hasType(message, 'metrics-ask');
}

function isMetricsAnswer(message: unknown): message is MetricsAnswer {
  return hasType(message, 'metrics');
}

/** A worker's end of its IPC channel, as a worker's `process` is. */
export interface PrimaryChannel {
  readonly connected: boolean;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  send?(message: unknown, sendHandle: undefined, options: object, callback: (error: Error | null) => void): boolean;
}

/**
 * In a worker: answers its primary's asks with this process's metrics, or with why it could not
 * collect them (a metric's collect() that threw), so that the primary need not wait to leave it out.
 */
export function answerPrimary(registry: Registry, channel: PrimaryChannel = process): void {
  channel.on('message', (message: unknown) => {
    if (!isMetricsAsk(message)) return;
    const answer = (body: MetricsAnswer) => {
      if (channel.connected) channel.send?.(body, undefined, {}, () => undefined);
    };
    registry.getMetricsAsJSON().then(
      (metrics) => answer({ type: 'metrics', id: message.id, metrics }),
      (error: unknown) =>
        answer({ type: 'metrics', id: message.id, failed: error instanceof Error ? error.message : String(error) }),
    );
  });
}

/** A worker as the primary sees it: what it asks of cluster's Worker, and no more. */
interface WorkerEnd {
  send(message: { type: 'metrics-ask'; id: number }, handle: undefined, callback: () => void): boolean;
  isConnected(): boolean;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  off(event: 'message', listener: (message: unknown) => void): unknown;
}

/**
 * In a cluster's primary: its own metrics (`own`: its process's, labelled worker="primary") and
 * those of every worker that answers in time, at each scrape. A worker that could not collect its
 * metrics is left out as a late one is, and told to `onWorkerFailure`; the primary's own failure
 * fails the scrape.
 */
export function clusterMetrics(
  workers: () => readonly WorkerEnd[],
  own: Registry,
  onWorkerFailure: (error: Error) => void = () => undefined,
): {
  readonly contentType: string;
  metrics(): Promise<string>;
} {
  let nextId = 0;
  const ask = (worker: WorkerEnd, id: number) =>
    new Promise<ProcessMetrics | null>((resolve) => {
      const timer = setTimeout(() => settle(null), WORKER_ANSWER_MS);
      const heard = (message: unknown) => {
        if (!isMetricsAnswer(message) || message.id !== id) return;
        if ('failed' in message) {
          onWorkerFailure(new Error(`A worker could not collect its metrics: ${message.failed}`));
          settle(null);
        } else settle(message.metrics);
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
      // Awaited together: the primary's own failure, heard while the workers are still asked, fails
      // the scrape at once rather than going unhandled until they answer.
      const [primary, answers] = await Promise.all([
        own.getMetricsAsJSON(),
        Promise.all(
          workers()
            .filter((worker) => worker.isConnected())
            .map((worker) => ask(worker, id)),
        ),
      ]);
      return AggregatorRegistry.aggregate([primary, ...answers.filter((each) => each !== null)]).metrics();
    },
  };
}
