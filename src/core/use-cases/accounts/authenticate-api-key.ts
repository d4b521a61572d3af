import { isActiveApiKey, isWellFormedApiKey, LAST_USE_RESOLUTION_MS } from '../../domain/account';
import { InvalidApiKey } from '../../domain/errors';
import type { CredentialHasher } from '../../ports/credential-hasher';
import type { TransactionBoundary } from '../../ports/transaction-boundary';
import type { WallClock } from '../../ports/wall-clock';

export interface Principal {
  readonly accountId: string;
  readonly apiKeyId: string;
}

/** Turns a presented API key into the account it acts for, or refuses it. */
export class AuthenticateApiKey {
  constructor(
    private readonly transactions: TransactionBoundary,
    private readonly hasher: CredentialHasher,
    private readonly clock: WallClock,
  ) {}

  async execute(input: { readonly apiKey: string }): Promise<Principal> {
    // A malformed key cannot exist: refuse it without a database round trip.
    if (!isWellFormedApiKey(input.apiKey)) throw new InvalidApiKey();
    const digest = this.hasher.digestApiKey(input.apiKey);
    const now = this.clock.now();
    // Read on every request (no cache), so a revoked or expired key is refused at once.
    const key = await this.transactions.read((repos) => repos.apiKeys.findByDigest(digest));
    if (!key || !isActiveApiKey(key, now)) throw new InvalidApiKey();

    // Last use to the minute: most requests find it fresh and write nothing; the conditional
    // write keeps concurrent requests from all writing the same minute.
    const since = new Date(now.getTime() - LAST_USE_RESOLUTION_MS);
    if (key.lastUsedAt === null || key.lastUsedAt.getTime() <= since.getTime()) {
      await this.transactions.read((repos) => repos.apiKeys.recordUse(key.id, now, since));
    }
    return { accountId: key.accountId, apiKeyId: key.id };
  }
}
