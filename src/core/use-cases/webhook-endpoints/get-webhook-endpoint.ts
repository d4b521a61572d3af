import type { WebhookEndpoint } from '../../domain/webhook-endpoint';
import type { TransactionBoundary } from '../../ports/transaction-boundary';
import { type EndpointInput, ownedEndpoint } from './owned-endpoint';

export class GetWebhookEndpoint {
  constructor(private readonly transactions: TransactionBoundary) {}

  execute(input: EndpointInput): Promise<WebhookEndpoint> {
    return this.transactions.read((repos) => ownedEndpoint(repos.webhookEndpoints, input));
  }
}
