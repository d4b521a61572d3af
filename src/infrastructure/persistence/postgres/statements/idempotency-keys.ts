import { kysely, type Slots, statement } from '../kysely';

/** The key as stored, when a claim found it kept: whose request it is, and its answer if any. */
export const READ_KEY = statement((p: Slots<{ readonly accountId: string; readonly key: string }>) =>
  kysely
    .selectFrom('idempotency_keys')
    .select([
      'request_digest as requestDigest',
      'response_status as responseStatus',
      'response_body as responseBody',
      'response_headers as responseHeaders',
      'created_at as createdAt',
    ])
    .where('account_id', '=', p.accountId)
    .where('key', '=', p.key),
);
