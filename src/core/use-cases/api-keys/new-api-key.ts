import { apiKeyKindOf, type ApiKey } from '../../domain/account';
import type { Permissions } from '../../domain/api-key-permissions';
import type { CredentialHasher } from '../../ports/credential-hasher';
import type { IdGenerator } from '../../ports/id-generator';

export interface IssuedApiKey {
  readonly key: ApiKey;
  /** The whole key: available only now, since only its digest is stored. */
  readonly secret: string;
}

/** What a new key is: its label, and its permissions (null: a full key). */
export interface ApiKeyTerms {
  readonly name: string | null;
  readonly permissions: Permissions | null;
}

/** A fresh random key of the account, ready to store; the caller stores it in its transaction. */
export function newApiKey(
  deps: { readonly ids: IdGenerator; readonly hasher: CredentialHasher },
  accountId: string,
  now: Date,
  terms: ApiKeyTerms,
): IssuedApiKey {
  const secret = deps.ids.newApiKey(apiKeyKindOf(terms.permissions));
  return {
    secret: secret.key,
    key: {
      id: deps.ids.newId('key'),
      accountId,
      prefix: secret.prefix,
      digest: deps.hasher.digestApiKey(secret.key),
      name: terms.name,
      createdAt: now,
      lastUsedAt: null,
      revokedAt: null,
      expiresAt: null,
      permissions: terms.permissions,
    },
  };
}
