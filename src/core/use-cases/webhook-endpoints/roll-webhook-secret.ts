import { rolled, type WebhookEndpoint } from '../../domain/webhook-endpoint';
import type { IdGenerator } from '../../ports/id-generator';
import type { TransactionBoundary } from '../../ports/transaction-boundary';
import type { WallClock } from '../../ports/wall-clock';
import { type EndpointInput, ownedEndpoint } from './owned-endpoint';

/**
 * A new signing secret for an endpoint, answered only now (the endpoint as rolled, its `secret` the
 * new one); the one it replaces keeps signing beside it for SECRET_OVERLAP_MS (on the service's
 * clock), so the receiver can switch at leisure.
 */
export class RollWebhookSecret {
  constructor(
    private readonly transactions: TransactionBoundary,
    private readonly ids: IdGenerator,
    private readonly clock: WallClock,
  ) {}

  execute(input: EndpointInput): Promise<WebhookEndpoint> {
    return this.transactions.exclusive(input.accountId, async (repos) => {
      const endpoint = await ownedEndpoint(repos.webhookEndpoints, input);
      const next = rolled(endpoint, this.ids.newWebhookSecret(), this.clock.now());
      await repos.webhookEndpoints.saveSecrets(next);
      return next;
    });
  }
}
