import { isActiveApiKey, type ApiKey } from '../../domain/account';
import type { Permissions } from '../../domain/api-key-permissions';
import { ApiKeyNotFound, ApiKeyNotRestricted } from '../../domain/errors';
import type { TransactionBoundary } from '../../ports/transaction-boundary';
import type { WallClock } from '../../ports/wall-clock';

export interface UpdateApiKeyInput {
  readonly accountId: string;
  readonly keyId: string;
  /** A new label (null: none); absent: unchanged. Already trimmed and within bounds. */
  readonly name?: string | null;
  /** A restricted key's new permissions, replacing all of them; absent: unchanged. */
  readonly permissions?: Permissions;
}

/**
 * Renames a key or changes a restricted key's permissions. Every process's verified-key cache
 * forgets the key when the change commits, so its next request anywhere has the new permissions.
 */
export class UpdateApiKey {
  constructor(
    private readonly transactions: TransactionBoundary,
    private readonly clock: WallClock,
  ) {}

  execute(input: UpdateApiKeyInput): Promise<ApiKey> {
    return this.transactions.exclusive(input.accountId, async (repos) => {
      const key = await repos.apiKeys.findForAccount(input.accountId, input.keyId);
      if (!key || !isActiveApiKey(key, this.clock.now())) throw new ApiKeyNotFound(input.keyId);
      // A full key's `tns_` says what it is to whoever holds it: it is never narrowed in place.
      if (input.permissions !== undefined && key.permissions === null) throw new ApiKeyNotRestricted(input.keyId);
      const updated: ApiKey = {
        ...key,
        name: input.name === undefined ? key.name : input.name,
        permissions: input.permissions ?? key.permissions,
      };
      await repos.apiKeys.save(updated);
      return updated;
    });
  }
}
