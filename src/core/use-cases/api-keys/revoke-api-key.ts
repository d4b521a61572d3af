import { isActiveApiKey, type ApiKey } from '../../domain/account';
import { ApiKeyNotFound } from '../../domain/errors';
import type { TransactionBoundary } from '../../ports/transaction-boundary';
import type { WallClock } from '../../ports/wall-clock';

/**
 * Revokes a key of the account; the next request with it is refused (every verified-key cache
 * forgets it at the commit).
 */
export class RevokeApiKey {
  constructor(
    private readonly transactions: TransactionBoundary,
    private readonly clock: WallClock,
  ) {}

  execute(input: { readonly accountId: string; readonly keyId: string }): Promise<ApiKey> {
    return this.transactions.exclusive(input.accountId, async (repos) => {
      const now = this.clock.now();
      const key = await repos.apiKeys.findForAccount(input.accountId, input.keyId);
      if (!key || !isActiveApiKey(key, now)) throw new ApiKeyNotFound(input.keyId);
      const revoked: ApiKey = { ...key, revokedAt: now };
      await repos.apiKeys.save(revoked);
      return revoked;
    });
  }
}
