import { disabledByOwner, enabled, type WebhookEndpoint } from '../../domain/webhook-endpoint';
import type { TransactionBoundary } from '../../ports/transaction-boundary';
import { type EndpointInput, ownedEndpoint } from './owned-endpoint';

/** Enables an endpoint: deliveries resume with the next change, its reason and failures cleared. */
export class EnableWebhookEndpoint {
  constructor(private readonly transactions: TransactionBoundary) {}

  execute(input: EndpointInput): Promise<WebhookEndpoint> {
    return changeState(this.transactions, input, enabled);
  }
}

/** Disables an endpoint by its owner's word: no message is recorded for it until it is enabled. */
export class DisableWebhookEndpoint {
  constructor(private readonly transactions: TransactionBoundary) {}

  execute(input: EndpointInput): Promise<WebhookEndpoint> {
    return changeState(this.transactions, input, disabledByOwner);
  }
}

function changeState(
  transactions: TransactionBoundary,
  input: EndpointInput,
  change: (endpoint: WebhookEndpoint) => WebhookEndpoint,
): Promise<WebhookEndpoint> {
  return transactions.exclusive(input.accountId, async (repos) => {
    const changed = change(await ownedEndpoint(repos.webhookEndpoints, input));
    await repos.webhookEndpoints.saveState(changed);
    return changed;
  });
}
