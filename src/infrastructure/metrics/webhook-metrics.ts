import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { QueueCounts } from '../job-queue/job-queue';

/** What the webhooks' gauges read at each scrape: the database's, the same from every process. */
export interface WebhookBacklog {
  counts(): Promise<readonly QueueCounts[]>;
  /** When the oldest message not yet delivered was recorded; null when every one was. */
  oldestPendingAt(): Promise<Date | null>;
}

/**
 * The webhooks' recording and their queue's backlog (docs/operations.md, "Metrics"): the messages
 * this process's statements recorded, by type (never by account), and, read at each scrape, the
 * jobs waiting and running and the age of the oldest message not yet delivered.
 */
export class WebhookMetrics {
  private readonly recorded: Counter<'type'>;
  private readonly relayedMessages: Counter;
  private readonly attempts: Histogram<'outcome'>;
  private readonly givingWay: Histogram;

  constructor(
    private readonly registry: Registry,
    private readonly now: () => number = Date.now,
  ) {
    this.recorded = new Counter({
      name: 'tns_webhook_messages_recorded_total',
      help:
        "Webhook messages recorded by this process's statements (a write's, or a window's check), one per " +
        'change and endpoint, by type.',
      labelNames: ['type'],
      registers: [registry],
    });
    this.relayedMessages = new Counter({
      name: 'tns_webhook_messages_relayed_total',
      help:
        "Webhook messages this process's relay moved from the outbox to the delivery queue, each given its " +
        'first attempt; recorded less relayed, summed over the processes, is what waits in the outbox.',
      registers: [registry],
    });
    this.attempts = new Histogram({
      name: 'tns_webhook_attempt_duration_seconds',
      help:
        "Webhook delivery attempts by what followed: 'delivered' (a 2xx), 'retry', 'failed' (its last), 'gone' " +
        "(410: endpoint disabled), 'failing' (5 days of failures: endpoint disabled); each from the name's " +
        'resolution to the answer read.',
      labelNames: ['outcome'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15],
      registers: [registry],
    });
    this.givingWay = new Histogram({
      name: 'tns_webhook_attempt_give_way_seconds',
      help:
        "How long each due webhook attempt waited for its account's own requests waiting in this process " +
        '(0 when none were; 1 s at most).',
      buckets: [0, 0.01, 0.05, 0.1, 0.25, 0.5, 1],
      registers: [registry],
    });
  }

  gaveWay(seconds: number): void {
    this.givingWay.observe(seconds);
  }

  attempted(outcome: string, seconds: number): void {
    this.attempts.observe({ outcome }, seconds);
  }

  messagesRecorded(type: string, count: number): void {
    this.recorded.inc({ type }, count);
  }

  messagesRelayed(count: number): void {
    this.relayedMessages.inc(count);
  }

  /**
   * The backlog's gauges, read from `backlog` at each scrape. A read that fails leaves the jobs
   * without a series and the age NaN for that scrape, rather than fail the whole scrape or show a
   * stale value.
   */
  watch(backlog: WebhookBacklog): void {
    const registers = [this.registry];
    const now = this.now;
    new Gauge({
      name: 'tns_webhook_jobs',
      help:
        "The webhooks' jobs by queue and state: 'deferred' (due later), 'ready' (due, waiting for a " +
        "worker), 'active' (running), as the queue last counted them; the same in every process.",
      labelNames: ['queue', 'state'],
      registers,
      async collect() {
        this.reset();
        const counts = await backlog.counts().catch(() => []);
        for (const { queue, deferred, ready, active } of counts) {
          this.set({ queue, state: 'deferred' }, deferred);
          this.set({ queue, state: 'ready' }, ready);
          this.set({ queue, state: 'active' }, active);
        }
      },
    });
    new Gauge({
      name: 'tns_webhook_oldest_pending_message_age_seconds',
      help:
        'Age of the oldest webhook message not yet delivered (0 when none is, NaN when it could not be read); ' +
        'the same in every process.',
      registers,
      async collect() {
        const recordedAt = await backlog.oldestPendingAt().catch(() => undefined);
        if (recordedAt === undefined) this.set(NaN);
        else this.set(recordedAt ? Math.max(0, (now() - recordedAt.getTime()) / 1000) : 0);
      },
    });
  }
}
