import type { WebhookEndpoint } from '../../domain/webhook-endpoint';
import type { TransactionBoundary } from '../../ports/transaction-boundary';
import { type EndpointInput, ownedEndpoint } from './owned-endpoint';

/**
 * Deletes an endpoint with its messages and their attempts: nothing more is sent to it. Answers the
 * endpoint as it was, for a page to name what it deleted.
 */
export class DeleteWebhookEndpoint {
  constructor(private readonly transactions: TransactionBoundary) {}

  execute(input: EndpointInput): Promise<WebhookEndpoint> {
    return this.transactions.exclusive(input.accountId, async (repos) => {
      const endpoint = await ownedEndpoint(repos.webhookEndpoints, input);
      await repos.webhookEndpoints.remove(input.accountId, input.endpointId);
      return endpoint;
    });
  }
}
