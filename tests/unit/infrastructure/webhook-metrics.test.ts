// The webhooks' metrics: the messages a process's statements recorded, by type, as the database's
// notices tell them, and the queue's backlog read at each scrape.
import { createMetricsRegistry } from '../../../src/infrastructure/metrics/metrics-registry';
import { type WebhookBacklog, WebhookMetrics } from '../../../src/infrastructure/metrics/webhook-metrics';
import { recordedMessagesOf } from '../../../src/infrastructure/persistence/postgres/webhook-messages';
import { samplesOf } from '../../support/metrics/exposition';

it("counts the messages recorded by type, from the database's notices and no other", async () => {
  const registry = createMetricsRegistry();
  const metrics = new WebhookMetrics(registry);
  const notices = [
    { message: 'webhook messages recorded', detail: '{"type" : "event.recorded", "count" : 3}' },
    { message: 'webhook messages recorded', detail: '{"type" : "event.updated", "count" : 1}' },
    { message: 'webhook messages recorded', detail: '{"type" : "event.recorded", "count" : 2}' },
    { message: 'relation "x" already exists, skipping' },
    { message: 'webhook messages recorded', detail: '{"count" : 2}' },
    { message: 'webhook messages recorded', detail: 'not json' },
  ];
  for (const notice of notices) {
    const recorded = recordedMessagesOf(notice);
    if (recorded) metrics.messagesRecorded(recorded.type, recorded.count);
  }

  const text = await registry.metrics();
  const counted = (type: string) => samplesOf(text, 'tns_webhook_messages_recorded_total', { type });
  expect([counted('event.recorded'), counted('event.updated')]).toEqual([[5], [1]]);
});

it("counts the messages this process's relay gave their jobs", async () => {
  const registry = createMetricsRegistry();
  const metrics = new WebhookMetrics(registry);
  metrics.messagesRelayed(500);
  metrics.messagesRelayed(7);

  expect(samplesOf(await registry.metrics(), 'tns_webhook_messages_relayed_total')).toEqual([507]);
});

it("reads the queue's jobs and the oldest pending message at each scrape, and says when it cannot", async () => {
  const registry = createMetricsRegistry();
  const now = Date.parse('2030-01-01T12:00:00Z');
  let oldest: Date | null = new Date(now - 90_000);
  let failing = false;
  const backlog: WebhookBacklog = {
    counts: () =>
      failing
        ? Promise.reject(new Error('database away'))
        : Promise.resolve([{ queue: 'webhook-delivery', deferred: 4, ready: 2, active: 3 }]),
    oldestPendingAt: () => (failing ? Promise.reject(new Error('database away')) : Promise.resolve(oldest)),
  };
  new WebhookMetrics(registry, () => now).watch(backlog);

  let text = await registry.metrics();
  const jobs = (state: string) => samplesOf(text, 'tns_webhook_jobs', { queue: 'webhook-delivery', state });
  expect([jobs('deferred'), jobs('ready'), jobs('active')]).toEqual([[4], [2], [3]]);
  expect(samplesOf(text, 'tns_webhook_oldest_pending_message_age_seconds', {})).toEqual([90]);

  oldest = null;
  text = await registry.metrics();
  expect(samplesOf(text, 'tns_webhook_oldest_pending_message_age_seconds', {})).toEqual([0]);

  failing = true;
  text = await registry.metrics();
  expect(jobs('ready')).toEqual([]);
  expect(samplesOf(text, 'tns_webhook_oldest_pending_message_age_seconds', {})).toEqual([NaN]);
});

it("counts how long each attempt gave way to its account's requests, most of them not at all", async () => {
  const registry = createMetricsRegistry();
  const metrics = new WebhookMetrics(registry);
  for (const seconds of [0, 0, 0.2, 1]) metrics.gaveWay(seconds);

  const text = await registry.metrics();
  const bucket = (le: string) => samplesOf(text, 'tns_webhook_attempt_give_way_seconds_bucket', { le });
  expect([bucket('0'), bucket('0.25'), bucket('1')]).toEqual([[2], [3], [4]]);
  expect(samplesOf(text, 'tns_webhook_attempt_give_way_seconds_sum', {})).toEqual([1.2]);
});
