import {
  isActiveApiKey,
  isLastUseDue,
  isWellFormedApiKey,
  LAST_USE_RESOLUTION_MS,
  type ApiKey,
} from '../../domain/account';
import type { Permissions } from '../../domain/api-key-permissions';
import { InvalidApiKey, TooManyFailedAttempts } from '../../domain/errors';
import type { CredentialHasher } from '../../ports/credential-hasher';
import type { FailedAttempts } from '../../ports/failed-attempts';
import type { TransactionBoundary } from '../../ports/transaction-boundary';
import type { VerifiedKey, VerifiedKeyCache } from '../../ports/verified-key-cache';
import type { WallClock } from '../../ports/wall-clock';

export interface Principal {
  readonly accountId: string;
  readonly apiKeyId: string;
  /** The key's permissions, checked by each operation before it runs; null for a full key. */
  readonly permissions: Permissions | null;
}

/** Turns a presented API key into the account it acts for, or refuses it. */
export class AuthenticateApiKey {
  constructor(
    private readonly transactions: TransactionBoundary,
    private readonly hasher: CredentialHasher,
    private readonly clock: WallClock,
    private readonly cache: VerifiedKeyCache,
    private readonly failures: FailedAttempts,
  ) {}

  /** `client`: who presents the key (its address), whose failures are counted. */
  async execute(input: { readonly apiKey: string; readonly client: string }): Promise<Principal> {
    // A malformed key cannot exist: refuse it without a database round trip.
    if (!isWellFormedApiKey(input.apiKey)) throw new InvalidApiKey();
    const digest = this.hasher.digestApiKey(input.apiKey);
    const now = this.clock.now();

    // A remembered key is trusted until its next use is due to be recorded: the common request
    // reads nothing. Revocations reach the cache when they commit; the minute bounds how long
    // anything the cache could not hear of would go unnoticed. The expiry is checked here too.
    const remembered = this.cache.find(digest);
    if (remembered && !isLastUseDue(remembered, now)) return principalOf(remembered, now);

    // Only for a key this process does not know, where a database read would follow: a key it
    // verified (still remembered, only due to record its use) never waits on others' failures.
    if (!remembered) {
      const waitMs = await this.failures.waitBeforeNext(input.client);
      if (waitMs > 0) throw new TooManyFailedAttempts(Math.ceil(waitMs / 1000));
    }

    const mark = this.cache.mark();
    const key = await this.transactions.read((repos) => repos.apiKeys.findByDigest(digest));
    if (!key || !isActiveApiKey(key, now)) {
      await this.failures.failed(input.client);
      throw new InvalidApiKey();
    }

    // Last use to the minute: the conditional write keeps concurrent requests (in any process)
    // from all writing the same minute.
    let lastUsedAt = key.lastUsedAt;
    if (isLastUseDue(key, now)) {
      const since = new Date(now.getTime() - LAST_USE_RESOLUTION_MS);
      await this.transactions.count(({ keyUses }) => keyUses.record(key.id, now, since));
      lastUsedAt = now;
    }
    // Another process's clock may run ahead: trust a remembered key for a minute of this clock.
    const trustedFrom = lastUsedAt !== null && lastUsedAt.getTime() > now.getTime() ? now : lastUsedAt;
    this.cache.remember({ ...verifiedPartOf(key), lastUsedAt: trustedFrom }, mark);
    return { accountId: key.accountId, apiKeyId: key.id, permissions: key.permissions };
  }
}

function principalOf(key: VerifiedKey, now: Date): Principal {
  if (!isActiveApiKey(key, now)) throw new InvalidApiKey();
  return { accountId: key.accountId, apiKeyId: key.id, permissions: key.permissions };
}

/** Only what checking the key and its permissions again needs: no name or prefix is kept in memory. */
function verifiedPartOf(key: ApiKey): VerifiedKey {
  const { id, accountId, digest, revokedAt, expiresAt, lastUsedAt, permissions } = key;
  return { id, accountId, digest, revokedAt, expiresAt, lastUsedAt, permissions };
}
