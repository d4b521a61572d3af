// WEB_CONCURRENCY > 1: at each scrape the primary asks every worker for its metrics over the IPC
// channel node:cluster gives them, and prom-client's AggregatorRegistry.aggregate makes them one
// exposition. Asked here rather than through prom-client's own clusterMetrics(), which fails the
// whole scrape when one worker does not answer (one that is dying or starting) and keeps what the
// others answered to it: a worker that is late is left out of that scrape, and nothing is kept.
import { AggregatorRegistry, Registry } from 'prom-client';
import {
  isMetricsAnswer,
  isMetricsAsk,
  type MetricsAnswer,
  type MetricsAsk,
  type ProcessMetrics,
} from '../../cluster/messages';
import { PendingAsks, UNANSWERED } from '../../cluster/pending-asks';

/** A worker is not waited for longer than this; Prometheus's default scrape timeout is 10 s. */
const WORKER_ANSWER_MS = 2_000;

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
  send(message: MetricsAsk, handle: undefined, callback: () => void): boolean;
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
  const asks = new PendingAsks<MetricsAnswer>(WORKER_ANSWER_MS);
  const ask = async (worker: WorkerEnd): Promise<ProcessMetrics | null> => {
    // Whichever ask of this worker it answers: a late one's answer finds no ask waiting.
    const heard = (message: unknown) => {
      if (isMetricsAnswer(message)) asks.answered(message.id, message);
    };
    worker.on('message', heard);
    const { answer } = asks.ask((id) => {
      // Without a callback, a send on a channel closing now is an 'error' event (cluster-primary.ts logs it).
      worker.send({ type: 'metrics-ask', id }, undefined, () => undefined);
      return true;
    });
    const answered = await answer;
    worker.off('message', heard);
    if (answered === UNANSWERED) return null;
    if ('failed' in answered) {
      onWorkerFailure(new Error(`A worker could not collect its metrics: ${answered.failed}`));
      return null;
    }
    return answered.metrics;
  };
  return {
    contentType: Registry.PROMETHEUS_CONTENT_TYPE,
    async metrics() {
      // Awaited together: the primary's own failure, heard while the workers are still asked, fails
      // the scrape at once rather than going unhandled until they answer.
      const [primary, answers] = await Promise.all([
        own.getMetricsAsJSON(),
        Promise.all(
          workers()
            .filter((worker) => worker.isConnected())
            .map(ask),
        ),
      ]);
      return AggregatorRegistry.aggregate([primary, ...answers.filter((each) => each !== null)]).metrics();
    },
  };
}
