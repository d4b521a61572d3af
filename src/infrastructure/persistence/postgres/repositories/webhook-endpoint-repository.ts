import {
  WEBHOOK_EVENT_TYPES,
  type WebhookDisabledReason,
  type WebhookEndpoint,
  type WebhookEndpointStatus,
  type WebhookEventType,
} from '../../../../core/domain/webhook-endpoint';
import type { WebhookEndpointCursor, WebhookEndpointRepository } from '../../../../core/ports/repositories';
import type { PrismaClient, WebhookEndpoint as EndpointRow } from '../../../database/driver/generated/client';
import type { Writes } from '../unit-of-work/writes';

const STATUSES: readonly WebhookEndpointStatus[] = ['enabled', 'disabled'];
const REASONS: readonly WebhookDisabledReason[] = ['gone', 'failing', 'by_owner'];

export class PostgresWebhookEndpointRepository implements WebhookEndpointRepository {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly writes: Writes,
  ) {}

  add(endpoint: WebhookEndpoint): Promise<void> {
    return this.writes.insert('webhook_endpoints', ['account_id', 'id'], {
      account_id: endpoint.accountId,
      id: endpoint.id,
      url: endpoint.url,
      description: endpoint.description,
      event_types: [...endpoint.eventTypes],
      status: endpoint.status,
      disabled_reason: endpoint.disabledReason,
      secret: endpoint.secret,
      previous_secret: endpoint.previousSecret,
      previous_secret_until: endpoint.previousSecretUntil,
      failing_since: endpoint.failingSince,
      created_at: endpoint.createdAt,
    });
  }

  saveState(endpoint: WebhookEndpoint): Promise<void> {
    return this.writes.update(
      'webhook_endpoints',
      { account_id: endpoint.accountId, id: endpoint.id },
      { status: endpoint.status, disabled_reason: endpoint.disabledReason, failing_since: endpoint.failingSince },
    );
  }

  saveSecrets(endpoint: WebhookEndpoint): Promise<void> {
    return this.writes.update(
      'webhook_endpoints',
      { account_id: endpoint.accountId, id: endpoint.id },
      {
        secret: endpoint.secret,
        previous_secret: endpoint.previousSecret,
        previous_secret_until: endpoint.previousSecretUntil,
      },
    );
  }

  remove(accountId: string, endpointId: string): Promise<void> {
    return this.writes.delete('webhook_endpoints', { account_id: accountId, id: endpointId });
  }

  async findForAccount(accountId: string, endpointId: string): Promise<WebhookEndpoint | null> {
    const row = await this.prisma.webhookEndpoint.findFirst({ where: { accountId, id: endpointId } });
    return row && endpointOf(row);
  }

  async listForAccount(
    accountId: string,
    page: { limit: number; after: WebhookEndpointCursor | null },
  ): Promise<WebhookEndpoint[]> {
    const after = page.after;
    const rows = await this.prisma.webhookEndpoint.findMany({
      where: {
        accountId,
        ...(after && {
          OR: [{ createdAt: { gt: after.createdAt } }, { createdAt: after.createdAt, id: { gt: after.id } }],
        }),
      },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      take: page.limit,
    });
    return rows.map(endpointOf);
  }

  countForAccount(accountId: string): Promise<number> {
    return this.prisma.webhookEndpoint.count({ where: { accountId } });
  }
}

/** An endpoint as stored, its state and types checked to be ones the domain knows. */
export function endpointOf(row: EndpointRow): WebhookEndpoint {
  const status = STATUSES.find((known) => known === row.status);
  const reason = row.disabledReason === null ? null : REASONS.find((known) => known === row.disabledReason);
  const eventTypes = row.eventTypes.map((type) => WEBHOOK_EVENT_TYPES.find((known) => known === type));
  if (!status || reason === undefined || eventTypes.some((type) => type === undefined))
    throw new Error(`Webhook endpoint ${row.id} has a state or event type the service does not know.`);
  return {
    accountId: row.accountId,
    id: row.id,
    url: row.url,
    description: row.description,
    eventTypes: eventTypes.filter((type): type is WebhookEventType => type !== undefined),
    status,
    disabledReason: reason,
    secret: row.secret,
    previousSecret: row.previousSecret,
    previousSecretUntil: row.previousSecretUntil,
    failingSince: row.failingSince,
    createdAt: row.createdAt,
  };
}
