// An attempt gives way to its account's own requests before it reads its message (what the
// process's queue of units makes of it: account-queue.test.ts).
import type { WebhookEndpoint } from '../../../../src/core/domain/webhook-endpoint';
import type { ForegroundWork } from '../../../../src/core/ports/foreground-work';
import type {
  FinishedDelivery,
  RecordedMessage,
  WebhookDeliveries,
} from '../../../../src/core/ports/webhook-deliveries';
import type { OutgoingWebhook } from '../../../../src/core/ports/webhook-sender';
import { DeliverWebhookMessage } from '../../../../src/core/use-cases/webhooks/deliver-webhook-message';

const JOB = { accountId: 'acc_a', messageId: 'msg_1', endpointId: 'whk_1' };
const NOW = new Date('2030-01-01T12:00:00Z');

const message: RecordedMessage = {
  accountId: 'acc_a',
  id: 'msg_1',
  endpointId: 'whk_1',
  eventType: 'webhook.test',
  subject: { endpoint_id: 'whk_1' },
  body: null,
  createdAt: NOW,
  state: 'pending',
  attempts: 0,
  origin: null,
  lastAttempt: null,
};
const endpoint: WebhookEndpoint = {
  accountId: 'acc_a',
  id: 'whk_1',
  url: 'https://hooks.example/in',
  description: null,
  eventTypes: ['event.recorded'],
  status: 'enabled',
  disabledReason: null,
  secret: 'whsec_c2VjcmV0',
  previousSecret: null,
  previousSecretUntil: null,
  failingSince: null,
  createdAt: NOW,
};

/** What happened, in order: the giving way, the reads, the sends and the records. */
function aDelivery(foreground: ForegroundWork) {
  const steps: string[] = [];
  const recorded: FinishedDelivery[] = [];
  const deliveries: WebhookDeliveries = {
    find: () => (steps.push('find'), Promise.resolve({ message, endpoint })),
    record: (finished) => (steps.push('record'), recorded.push(finished), Promise.resolve(true)),
    listAttempts: () => Promise.reject(new Error('not read by a delivery')),
    failOfDisabledEndpoint: () => Promise.reject(new Error('the endpoint is enabled')),
    resend: () => Promise.reject(new Error('not resent by a delivery')),
  };
  const sent: OutgoingWebhook[] = [];
  const deliver = new DeliverWebhookMessage(
    foreground,
    deliveries,
    { render: () => '{"type":"webhook.test"}' },
    {
      send: (webhook) => {
        steps.push('send');
        sent.push(webhook);
        return Promise.resolve({ status: 204, error: null, durationMs: 3, answer: '', retryAfterSeconds: null });
      },
    },
    { now: () => NOW },
    { scheduleSeconds: [5], random: () => 0.5 },
  );
  return { deliver, steps, recorded, sent };
}

it("reads, sends and records an attempt only once its account's waiting requests have gone ahead", async () => {
  let wentAhead: (ms: number) => void = () => undefined;
  const foreground: ForegroundWork = {
    giveWay: (accountId, atMostMs) => {
      expect([accountId, atMostMs]).toEqual(['acc_a', 1_000]);
      return new Promise((resolve) => (wentAhead = resolve));
    },
  };
  const { deliver, steps, recorded, sent } = aDelivery(foreground);

  const report = deliver.execute(JOB);
  await new Promise((resolve) => setImmediate(resolve));
  expect(steps).toEqual([]);

  wentAhead(250);
  expect(await report).toMatchObject({ gaveWayMs: 250, sent: true, attempt: 1, outcome: { kind: 'delivered' } });
  expect(steps).toEqual(['find', 'send', 'record']);
  // The body sent is the body kept by the attempt's record.
  expect(recorded[0]?.body).toBe('{"type":"webhook.test"}');
  expect(sent[0]?.body).toBe('{"type":"webhook.test"}');
});

it('goes at once when nothing of its account waits', async () => {
  const { deliver, steps } = aDelivery({ giveWay: () => Promise.resolve(0) });
  expect(await deliver.execute(JOB)).toMatchObject({ gaveWayMs: 0, sent: true });
  expect(steps).toEqual(['find', 'send', 'record']);
});
