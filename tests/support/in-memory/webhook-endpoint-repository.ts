import type { WebhookEndpoint } from '../../../src/core/domain/webhook-endpoint';
import type { WebhookEndpointCursor, WebhookEndpointRepository } from '../../../src/core/ports/repositories';
import { ownedKey } from './repositories';
import { type Journal, type Table, write } from './table';

/** Endpoints keyed by account and id, as the real table's primary key: another account's id is not there. */
export class InMemoryWebhookEndpointRepository implements WebhookEndpointRepository {
  constructor(
    private readonly table: Table<WebhookEndpoint>,
    private readonly journal: Journal | null,
  ) {}

  add(endpoint: WebhookEndpoint): Promise<void> {
    return write(this.journal, (applying) =>
      this.table.insert(ownedKey(endpoint.accountId, endpoint.id), endpoint, applying),
    );
  }

  /** As the real adapter: only the columns the port names are written. */
  saveState(endpoint: WebhookEndpoint): Promise<void> {
    return this.change(endpoint, ({ status, disabledReason, failingSince }) => ({
      status,
      disabledReason,
      failingSince,
    }));
  }

  saveSecrets(endpoint: WebhookEndpoint): Promise<void> {
    return this.change(endpoint, ({ secret, previousSecret, previousSecretUntil }) => ({
      secret,
      previousSecret,
      previousSecretUntil,
    }));
  }

  remove(accountId: string, endpointId: string): Promise<void> {
    return write(this.journal, (applying) => this.table.delete(ownedKey(accountId, endpointId), applying));
  }

  async findForAccount(accountId: string, endpointId: string): Promise<WebhookEndpoint | null> {
    return this.table.get(ownedKey(accountId, endpointId)) ?? null;
  }

  async listForAccount(
    accountId: string,
    page: { limit: number; after: WebhookEndpointCursor | null },
  ): Promise<WebhookEndpoint[]> {
    const { after, limit } = page;
    return this.table
      .values()
      .filter((endpoint) => endpoint.accountId === accountId)
      .sort(byCreationThenId)
      .filter((endpoint) => after === null || byCreationThenId(endpoint, after) > 0)
      .slice(0, Math.max(0, limit));
  }

  async countForAccount(accountId: string): Promise<number> {
    return this.table.values().filter((endpoint) => endpoint.accountId === accountId).length;
  }

  private change(endpoint: WebhookEndpoint, columns: (from: WebhookEndpoint) => Partial<WebhookEndpoint>) {
    return write(this.journal, (applying) => {
      const key = ownedKey(endpoint.accountId, endpoint.id);
      const stored = this.table.get(key);
      if (!stored) throw applying.missing(`webhook endpoint '${endpoint.id}'`);
      this.table.update(key, { ...stored, ...columns(endpoint) }, applying);
    });
  }
}

function byCreationThenId(a: WebhookEndpointCursor, b: WebhookEndpointCursor): number {
  return a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
