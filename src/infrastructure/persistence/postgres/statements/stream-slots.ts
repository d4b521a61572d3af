import { sql } from 'kysely';
import { kysely, type Slots, statement } from '../kysely';

interface Take {
  readonly apiKeyId: string;
  readonly accountId: string;
  readonly holder: string;
  readonly limit: number;
  readonly leaseMs: number;
}

/**
 * Takes one of the account's slots (0 to limit - 1) not held by a live lease, chosen at random,
 * for a stream opened with the key `apiKeyId` (whose validity its renewals check). The
 * row lock of the conflict serialises two processes taking the same slot: the second finds it held
 * once the first commits, and takes nothing (its caller tries again, and sees the first's slot
 * held). No slot comes back when all are held.
 *
 * First it waits for the account's unit of work under way, if any, to commit: its statement,
 * which moves the traveller's version on and holds the traveller's row until it commits, may have
 * written events before the slot existed, announcing nothing, and the stream's first read must
 * see them. A unit that comes after the lock waits for the slot, and its events' trigger finds it.
 */
export const TAKE_SLOT = statement((p: Slots<Take>) =>
  kysely
    .with(
      (cte) => cte('writes_committed').materialized(),
      (db) =>
        db
          .selectFrom((locked) =>
            locked
              .selectFrom('travellers')
              .select(sql`1`.as('one'))
              .where('account_id', '=', p.accountId)
              .forShare()
              .as('traveller'),
          )
          // One row, with the traveller or without (count 0): the slot is taken either way.
          .select((eb) => eb.fn.countAll().as('waited')),
    )
    .insertInto('event_stream_slots')
    .columns(['api_key_id', 'account_id', 'slot', 'holder', 'expires_at'])
    .expression((eb) =>
      eb
        // One row per slot, its number in the column the function's alias names; joined to the
        // lock's row, so that no slot is inserted before the lock is held. Which slots are free is
        // judged on the statement's snapshot, from before that wait: one taken meanwhile falls to
        // the conflict's clause, and the caller tries again. The lease counts from the start.
        .selectFrom([sql<{ free: number }>`generate_series(0, ${p.limit}::int - 1)`.as('free'), 'writes_committed'])
        .select([
          sql<string>`${p.apiKeyId}::text`.as('api_key_id'),
          sql<string>`${p.accountId}::text`.as('account_id'),
          sql<number>`free`.as('slot'),
          sql<string>`${p.holder}::text`.as('holder'),
          sql<Date>`now() + ${p.leaseMs}::int * interval '1 millisecond'`.as('expires_at'),
        ])
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('event_stream_slots as held')
                .select(sql`1`.as('held'))
                .where('held.account_id', '=', p.accountId)
                .where('held.slot', '=', sql<number>`free`)
                .where('held.expires_at', '>', sql<Date>`now()`),
            ),
          ),
        )
        // At random among the free: openers at once seldom choose the same slot.
        .orderBy(sql`random()`)
        .limit(1),
    )
    .onConflict((conflict) =>
      conflict
        .columns(['account_id', 'slot'])
        .doUpdateSet((eb) => ({
          api_key_id: eb.ref('excluded.api_key_id'),
          holder: eb.ref('excluded.holder'),
          expires_at: eb.ref('excluded.expires_at'),
        }))
        .where('event_stream_slots.expires_at', '<=', sql<Date>`now()`),
    )
    .returning('slot'),
);

/**
 * Every slot of these holders leased `leaseMs` from now, if its key is still valid as
 * authentication has it (not revoked, not expired, not deleted) and still grants what opening the
 * stream needed, `events:read` (a full key, or a restricted one at read or write): the holders renewed.
 */
export const RENEW_SLOTS = statement((p: Slots<{ readonly holders: readonly string[]; readonly leaseMs: number }>) =>
  kysely
    .updateTable('event_stream_slots')
    .from('api_keys')
    .set({ expires_at: sql<Date>`now() + ${p.leaseMs}::int * interval '1 millisecond'` })
    .where('event_stream_slots.holder', '=', sql<string>`ANY(${p.holders}::text[])`)
    .whereRef('api_keys.id', '=', 'event_stream_slots.api_key_id')
    .where('api_keys.revoked_at', 'is', null)
    .where((eb) => eb.or([eb('api_keys.expires_at', 'is', null), eb('api_keys.expires_at', '>', sql<Date>`now()`)]))
    .where((eb) =>
      eb.or([
        eb('api_keys.permissions', 'is', null),
        eb(sql<string>`api_keys.permissions ->> 'events'`, 'in', ['read', 'write']),
      ]),
    )
    .returning('event_stream_slots.holder'),
);

export const RELEASE_SLOT = statement((p: Slots<{ readonly accountId: string; readonly holder: string }>) =>
  kysely.deleteFrom('event_stream_slots').where('account_id', '=', p.accountId).where('holder', '=', p.holder),
);

/** How many of the account's slots live leases hold. */
export const HELD_SLOTS = statement((p: Slots<{ readonly accountId: string }>) =>
  kysely
    .selectFrom('event_stream_slots')
    .select((eb) => eb.fn.countAll<string>().as('held'))
    .where('account_id', '=', p.accountId)
    .where('expires_at', '>', sql<Date>`now()`),
);
