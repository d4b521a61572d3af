import { WebhookEndpointNotFound } from '../../domain/errors';
import type { QueuedMessage } from '../../ports/webhook-deliveries';
import type { TransactionBoundary } from '../../ports/transaction-boundary';
import type { WebhookMessages } from '../../ports/webhook-messages';
import { enabledEndpoint } from './enabled-endpoint';
import type { EndpointInput } from './owned-endpoint';

/**
 * A webhook.test message for the endpoint, whatever it subscribes to, delivered as every message
 * is (docs/webhooks.md, "Testing"): its owner sees the receiver verify one without waiting for a change.
 */
export class SendTestWebhook {
  constructor(
    private readonly transactions: TransactionBoundary,
    private readonly messages: WebhookMessages,
  ) {}

  async execute(input: EndpointInput): Promise<QueuedMessage> {
    await enabledEndpoint(this.transactions, input);
    const message = await this.messages.recordTest(input);
    // Deleted since it was read: as if it had never been.
    if (!message) throw new WebhookEndpointNotFound(input.endpointId);
    return message;
  }
}
