import { isActiveApiKey, type ApiKey } from '../../domain/account';
import type { TransactionBoundary } from '../../ports/transaction-boundary';
import type { WallClock } from '../../ports/wall-clock';

/** The account's usable keys, oldest first; revoked and expired ones are history, not listed. */
export class ListApiKeys {
  constructor(
    private readonly transactions: TransactionBoundary,
    private readonly clock: WallClock,
  ) {}

  async execute(input: { readonly accountId: string }): Promise<ApiKey[]> {
    const now = this.clock.now();
    const keys = await this.transactions.read((repos) => repos.apiKeys.listForAccount(input.accountId));
    return keys.filter((key) => isActiveApiKey(key, now));
  }
}
