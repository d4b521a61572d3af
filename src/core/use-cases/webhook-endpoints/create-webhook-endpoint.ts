import { InvalidField, TooManyWebhookEndpoints, WebhookUrlNotAllowed } from '../../domain/errors';
import {
  MAX_WEBHOOK_ENDPOINTS,
  newWebhookEndpoint,
  readWebhookUrl,
  webhookEventTypes,
  type WebhookEndpoint,
  type WebhookUrlPolicy,
} from '../../domain/webhook-endpoint';
import type { IdGenerator } from '../../ports/id-generator';
import type { TransactionBoundary } from '../../ports/transaction-boundary';
import type { WallClock } from '../../ports/wall-clock';
import type { WebhookDestinations } from '../../ports/webhook-destinations';

export interface CreateWebhookEndpointInput {
  readonly accountId: string;
  /** Checked at the edge but for its scheme, which the service's settings decide. */
  readonly url: string;
  /** Checked at the edge; the core checks them again (webhookEventTypes). */
  readonly eventTypes: readonly string[];
  /** Already within MAX_TEXT_LENGTH and not blank; null for none. */
  readonly description: string | null;
}

/** Registers an endpoint that the account's changes of the types it names are pushed to. */
export class CreateWebhookEndpoint {
  constructor(
    private readonly transactions: TransactionBoundary,
    private readonly destinations: WebhookDestinations,
    private readonly ids: IdGenerator,
    private readonly clock: WallClock,
    private readonly policy: WebhookUrlPolicy,
  ) {}

  async execute(input: CreateWebhookEndpointInput): Promise<WebhookEndpoint> {
    const reading = readWebhookUrl(input.url, this.policy);
    if (reading.fault !== undefined) throw new InvalidField('url', reading.fault);
    const eventTypes = webhookEventTypes(input.eventTypes);
    // An account at its limit costs no lookup of a name, the slow part; the unit counts again, and decides.
    refuseAtLimit(await this.transactions.read((repos) => repos.webhookEndpoints.countForAccount(input.accountId)));
    // Resolving the name is the network's time, not the account's: it runs before the unit of
    // work, which may run again and holds the account's turn while it runs.
    const destination = await this.destinations.check(reading.url);
    if (!destination.allowed) throw new WebhookUrlNotAllowed(destination.reason);
    // Exclusive: two concurrent creations, in any processes, cannot both slip under the limit.
    return this.transactions.exclusive(input.accountId, async (repos) => {
      refuseAtLimit(await repos.webhookEndpoints.countForAccount(input.accountId));
      const endpoint = newWebhookEndpoint({
        accountId: input.accountId,
        id: this.ids.newId('whk'),
        url: reading.url,
        description: input.description,
        eventTypes,
        secret: this.ids.newWebhookSecret(),
        createdAt: this.clock.now(),
      });
      await repos.webhookEndpoints.add(endpoint);
      return endpoint;
    });
  }
}

function refuseAtLimit(endpoints: number): void {
  if (endpoints >= MAX_WEBHOOK_ENDPOINTS) throw new TooManyWebhookEndpoints(MAX_WEBHOOK_ENDPOINTS);
}
