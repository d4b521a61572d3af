import type { WebhookEndpoint } from '../../domain/webhook-endpoint';
import type { TransactionBoundary } from '../../ports/transaction-boundary';
import type { RecordedAttempt, WebhookAttemptCursor, WebhookDeliveries } from '../../ports/webhook-deliveries';
import { pageSize } from '../page-size';
import { DEFAULT_ENDPOINT_PAGE_SIZE, MAX_ENDPOINT_PAGE_SIZE } from './list-webhook-endpoints';
import { type EndpointInput, ownedEndpoint } from './owned-endpoint';

export interface WebhookAttemptPage {
  /** The endpoint whose ownership the listing checked: a page that shows it need not read it again. */
  readonly endpoint: WebhookEndpoint;
  readonly attempts: readonly RecordedAttempt[];
  /** Where the next page starts, or null on the last page. */
  readonly next: WebhookAttemptCursor | null;
}

/**
 * Every attempt of an endpoint's messages, newest first, one bounded page at a time, paged as the
 * endpoints are. Another account's endpoint, or none, is refused as GetWebhookEndpoint refuses it.
 */
export class ListWebhookDeliveries {
  constructor(
    private readonly transactions: TransactionBoundary,
    private readonly deliveries: WebhookDeliveries,
  ) {}

  async execute(
    input: EndpointInput & { readonly limit?: number; readonly after?: WebhookAttemptCursor | null },
  ): Promise<WebhookAttemptPage> {
    const limit = pageSize(input.limit, DEFAULT_ENDPOINT_PAGE_SIZE, MAX_ENDPOINT_PAGE_SIZE);
    const endpoint = await this.transactions.read((repos) => ownedEndpoint(repos.webhookEndpoints, input));
    // One extra row tells whether another page follows without a count query.
    const rows = await this.deliveries.listAttempts(input, { limit: limit + 1, after: input.after ?? null });
    const attempts = rows.slice(0, limit);
    const last = attempts[attempts.length - 1];
    const next =
      rows.length > limit && last
        ? { attemptedAt: last.attemptedAt, messageId: last.messageId, attempt: last.attempt }
        : null;
    return { endpoint, attempts, next };
  }
}
