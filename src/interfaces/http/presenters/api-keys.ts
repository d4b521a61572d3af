import type { ApiKey } from '../../../core/domain/account';
import { formatDateTime } from '../../../core/domain/date-time-format';
import type { IssuedApiKey } from '../../../core/use-cases/api-keys/new-api-key';

/** A key as listed and changed: never its secret, only the first characters to recognise it. */
export function presentApiKey(key: ApiKey) {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    permissions: key.permissions,
    created_at: formatDateTime(key.createdAt),
    last_used_at: key.lastUsedAt && formatDateTime(key.lastUsedAt),
    expires_at: key.expiresAt && formatDateTime(key.expiresAt),
  };
}

/** A key just made, with the whole key, which is shown this once. */
export function presentNewApiKey({ key, secret }: IssuedApiKey) {
  return {
    id: key.id,
    name: key.name,
    api_key: secret,
    permissions: key.permissions,
    created_at: formatDateTime(key.createdAt),
  };
}
