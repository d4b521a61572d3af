import { kysely, type Slots, statement } from '../kysely';

/**
 * The key as stored, when a claim found it kept: whose request it is, and its answer if any, the
 * body as the JSON text it was kept as (a `json` column keeps it verbatim), to be sent as it is.
 */
export const READ_KEY = statement((p: Slots<{ readonly accountId: string; readonly key: string }>) =>
  kysely
    .selectFrom('idempotency_keys')
    .select((eb) => [
      'request_digest as requestDigest',
      'response_status as responseStatus',
      eb.cast<string | null>('response_body', 'text').as('responseBody'),
      'response_headers as responseHeaders',
      'created_at as createdAt',
    ])
    .where('account_id', '=', p.accountId)
    .where('key', '=', p.key),
);
