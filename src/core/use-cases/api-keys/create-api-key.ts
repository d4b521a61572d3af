import { isActiveApiKey, isConsoleKey, MAX_ACTIVE_API_KEYS } from '../../domain/account';
import { TooManyApiKeys } from '../../domain/errors';
import type { CredentialHasher } from '../../ports/credential-hasher';
import type { IdGenerator } from '../../ports/id-generator';
import type { TransactionBoundary } from '../../ports/transaction-boundary';
import type { WallClock } from '../../ports/wall-clock';
import { newApiKey, type ApiKeyTerms, type IssuedApiKey } from './new-api-key';

export interface CreateApiKeyInput extends ApiKeyTerms {
  readonly accountId: string;
  /** Already trimmed and within `API_KEY_NAME_MAX_LENGTH`; null for none. */
  readonly name: string | null;
}

/** Another key of the account, full or restricted, alongside the ones it has. */
export class CreateApiKey {
  constructor(
    private readonly transactions: TransactionBoundary,
    private readonly hasher: CredentialHasher,
    private readonly ids: IdGenerator,
    private readonly clock: WallClock,
  ) {}

  execute(input: CreateApiKeyInput): Promise<IssuedApiKey> {
    // Exclusive: two concurrent creations cannot both slip under the limit.
    return this.transactions.exclusive(input.accountId, async (repos) => {
      const now = this.clock.now();
      const keys = await repos.apiKeys.listForAccount(input.accountId);
      const own = keys.filter((key) => isActiveApiKey(key, now) && !isConsoleKey(key));
      if (own.length >= MAX_ACTIVE_API_KEYS) throw new TooManyApiKeys(MAX_ACTIVE_API_KEYS);
      const issued = newApiKey({ ids: this.ids, hasher: this.hasher }, input.accountId, now, input);
      await repos.apiKeys.add(issued.key);
      return issued;
    });
  }
}
