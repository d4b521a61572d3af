import { WebhookMessageNotFound } from '../../domain/errors';
import type { TransactionBoundary } from '../../ports/transaction-boundary';
import type { WallClock } from '../../ports/wall-clock';
import type { MessageInput, QueuedMessage, WebhookDeliveries } from '../../ports/webhook-deliveries';
import { enabledEndpoint } from './enabled-endpoint';

/**
 * The same message again (docs/webhooks.md, "Resending"): its `webhook-id` and kept body, signed
 * with the endpoint's secrets of the moment, as one more attempt through the queue's delivery path,
 * made at once. Whatever the message's state: a delivered or failed one is pending again for that
 * one attempt, and a pending one has its next attempt now and no retry after it. The retry
 * schedule does not start again: a receiver that is still down is not sent the message for days more.
 */
export class ResendWebhookMessage {
  constructor(
    private readonly transactions: TransactionBoundary,
    private readonly deliveries: WebhookDeliveries,
    private readonly clock: WallClock,
  ) {}

  async execute(input: MessageInput): Promise<QueuedMessage> {
    await enabledEndpoint(this.transactions, input);
    const message = await this.deliveries.resend(input, this.clock.now());
    if (!message) throw new WebhookMessageNotFound(input.messageId);
    return message;
  }
}
