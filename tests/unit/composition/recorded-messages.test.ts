// What a process does with the notices of its writes that recorded webhook messages
// (composition/job-queue.ts): counts them, and tells its relay while the queue runs. That a notice
// is heard only once its transaction has ended is shown on the databases in webhook-recording.test.ts.
import { RecordedMessages } from '../../../src/composition/job-queue';
import { createMetricsRegistry } from '../../../src/infrastructure/metrics/metrics-registry';
import { WebhookMetrics } from '../../../src/infrastructure/metrics/webhook-metrics';
import { samplesOf } from '../../support/metrics/exposition';

const RECORDED = { message: 'webhook messages recorded', detail: '{"type":"event.recorded","count":3}' };

function recordedMessages() {
  const registry = createMetricsRegistry();
  const recorded = new RecordedMessages(new WebhookMetrics(registry));
  const told: number[] = [];
  const relay = { soon: () => told.push(told.length + 1) };
  const counted = async () =>
    samplesOf(await registry.metrics(), 'tns_webhook_messages_recorded_total', { type: 'event.recorded' });
  return { recorded, relay, told, counted };
}

it('counts the messages a notice tells of, and tells the relay to look', async () => {
  const { recorded, relay, told, counted } = recordedMessages();
  recorded.tell(relay);
  recorded.heard(RECORDED);
  recorded.heard(RECORDED);

  expect(told).toEqual([1, 2]);
  expect(await counted()).toEqual([6]);
});

it('neither counts nor tells for any other notice', async () => {
  const { recorded, relay, told, counted } = recordedMessages();
  recorded.tell(relay);
  recorded.heard({ message: 'relation "events" already exists, skipping' });
  recorded.heard({ message: 'webhook messages recorded', detail: 'not JSON' });

  expect(told).toEqual([]);
  expect(await counted()).toEqual([]);
});

it('still counts while no queue runs (a standby, or the queue stopped), telling no relay', async () => {
  const { recorded, relay, told, counted } = recordedMessages();
  recorded.heard(RECORDED);
  recorded.tell(relay);
  recorded.tell(null);
  recorded.heard(RECORDED);

  expect(told).toEqual([]);
  expect(await counted()).toEqual([6]);
});
