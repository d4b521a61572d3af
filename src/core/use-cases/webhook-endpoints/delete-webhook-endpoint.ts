import type { TransactionBoundary } from '../../ports/transaction-boundary';
import { type EndpointInput, ownedEndpoint } from './owned-endpoint';

/** Deletes an endpoint with its messages and their attempts: nothing more is sent to it. */
export class DeleteWebhookEndpoint {
  constructor(private readonly transactions: TransactionBoundary) {}

  execute(input: EndpointInput): Promise<void> {
    return this.transactions.exclusive(input.accountId, async (repos) => {
      await ownedEndpoint(repos.webhookEndpoints, input);
      await repos.webhookEndpoints.remove(input.accountId, input.endpointId);
    });
  }
}
