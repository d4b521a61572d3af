import { sql } from 'kysely';
import { kysely, type Slots, statement } from '../kysely';

/**
 * A new key, or one expired (created at or before `expiredBefore`) or abandoned (unanswered and
 * created at or before `abandonedBefore`), claimed for this request; a live key is left as it is,
 * and no row answers.
 */
export const CLAIM = statement(
  (
    p: Slots<{
      readonly accountId: string;
      readonly key: string;
      readonly requestDigest: string;
      readonly now: Date;
      readonly expiredBefore: Date;
      readonly abandonedBefore: Date;
    }>,
  ) =>
    kysely
      .insertInto('idempotency_keys')
      .values({ account_id: p.accountId, key: p.key, request_digest: p.requestDigest, created_at: p.now })
      .onConflict((conflict) =>
        conflict
          .columns(['account_id', 'key'])
          .doUpdateSet((eb) => ({
            request_digest: eb.ref('excluded.request_digest'),
            created_at: eb.ref('excluded.created_at'),
            // Literal NULLs: a value would be sent as a parameter.
            response_status: sql.lit(null),
            response_body: sql.lit(null),
            response_headers: sql.lit(null),
          }))
          .where((eb) =>
            eb.or([
              eb('idempotency_keys.created_at', '<=', p.expiredBefore),
              eb.and([
                eb('idempotency_keys.response_status', 'is', null),
                eb('idempotency_keys.created_at', '<=', p.abandonedBefore),
              ]),
            ]),
          ),
      )
      .returning('key'),
);

/** The key as stored, when the claim found it live: whose request it is, and its answer if any. */
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
