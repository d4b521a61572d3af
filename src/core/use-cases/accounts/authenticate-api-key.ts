import { isWellFormedApiKey } from '../../domain/account';
import { InvalidApiKey } from '../../domain/errors';
import type { CredentialHasher } from '../../ports/credential-hasher';
import type { TransactionBoundary } from '../../ports/transaction-boundary';

export interface Principal {
  readonly accountId: string;
  readonly apiKeyId: string;
}

/** Turns a presented API key into the account it acts for, or refuses it. */
export class AuthenticateApiKey {
  constructor(
    private readonly transactions: TransactionBoundary,
    private readonly hasher: CredentialHasher,
  ) {}

  async execute(input: { readonly apiKey: string }): Promise<Principal> {
    // A malformed key cannot exist: refuse it without a database round trip.
    if (!isWellFormedApiKey(input.apiKey)) throw new InvalidApiKey();
    const digest = this.hasher.digestApiKey(input.apiKey);
    const key = await this.transactions.read((repos) => repos.apiKeys.findByDigest(digest));
    if (!key || key.revokedAt !== null) throw new InvalidApiKey();
    return { accountId: key.accountId, apiKeyId: key.id };
  }
}
