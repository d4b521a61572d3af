import { isActiveApiKey, isConsoleKey } from '../../domain/account';
import { ApiKeyNotFound, ConsoleKeyNotRollable } from '../../domain/errors';
import type { CredentialHasher } from '../../ports/credential-hasher';
import type { IdGenerator } from '../../ports/id-generator';
import type { TransactionBoundary } from '../../ports/transaction-boundary';
import type { WallClock } from '../../ports/wall-clock';
import { newApiKey, type IssuedApiKey } from './new-api-key';

/**
 * Replaces a key: the old one is revoked and a new one with the same name and permissions issued,
 * in one transaction, so there is never a moment with both or neither.
 */
export class RollApiKey {
  constructor(
    private readonly transactions: TransactionBoundary,
    private readonly hasher: CredentialHasher,
    private readonly ids: IdGenerator,
    private readonly clock: WallClock,
  ) {}

  execute(input: { readonly accountId: string; readonly keyId: string }): Promise<IssuedApiKey> {
    return this.transactions.exclusive(input.accountId, async (repos) => {
      const now = this.clock.now();
      const old = await repos.apiKeys.findForAccount(input.accountId, input.keyId);
      if (!old || !isActiveApiKey(old, now)) throw new ApiKeyNotFound(input.keyId);
      if (isConsoleKey(old)) throw new ConsoleKeyNotRollable(input.keyId);
      await repos.apiKeys.save({ ...old, revokedAt: now });
      const issued = newApiKey({ ids: this.ids, hasher: this.hasher }, input.accountId, now, old);
      await repos.apiKeys.add(issued.key);
      return issued;
    });
  }
}
