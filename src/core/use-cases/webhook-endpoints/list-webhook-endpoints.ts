import type { WebhookEndpoint } from '../../domain/webhook-endpoint';
import type { WebhookEndpointCursor } from '../../ports/repositories';
import type { TransactionBoundary } from '../../ports/transaction-boundary';
import { pageSize } from '../page-size';

/** A page holds every endpoint an account may have unless it asks for fewer. */
export const DEFAULT_ENDPOINT_PAGE_SIZE = 10;
export const MAX_ENDPOINT_PAGE_SIZE = 100;

export interface WebhookEndpointPage {
  readonly endpoints: readonly WebhookEndpoint[];
  /** Where the next page starts, or null on the last page. */
  readonly next: WebhookEndpointCursor | null;
}

/** The account's endpoints, oldest first, one bounded page at a time. */
export class ListWebhookEndpoints {
  constructor(private readonly transactions: TransactionBoundary) {}

  async execute(input: {
    readonly accountId: string;
    readonly limit?: number;
    readonly after?: WebhookEndpointCursor | null;
  }): Promise<WebhookEndpointPage> {
    const limit = pageSize(input.limit, DEFAULT_ENDPOINT_PAGE_SIZE, MAX_ENDPOINT_PAGE_SIZE);
    // One extra row tells whether another page follows without a count query.
    const rows = await this.transactions.read((repos) =>
      repos.webhookEndpoints.listForAccount(input.accountId, { limit: limit + 1, after: input.after ?? null }),
    );
    const endpoints = rows.slice(0, limit);
    const last = endpoints[endpoints.length - 1];
    const next = rows.length > limit && last ? { createdAt: last.createdAt, id: last.id } : null;
    return { endpoints, next };
  }
}
