import { sql } from 'kysely';
import { kysely, type Slots, statement } from '../kysely';
import type { TravellerRow } from '../unit-of-work/gated-statement';

/** The account's traveller with its version (a bigint, which node-postgres answers as text). */
export const READ_TRAVELLER = statement((p: Slots<{ readonly accountId: string }>) =>
  kysely.selectFrom('travellers').selectAll().where('account_id', '=', p.accountId),
);

/** The version alone: whether anything of the account changed since a unit of work read it. */
export const TRAVELLER_VERSION = statement((p: Slots<{ readonly accountId: string }>) =>
  kysely.selectFrom('travellers').select('version').where('account_id', '=', p.accountId),
);

/** Outside a unit of work (set-up, tests): the version moves on, so no unit that read the old state applies. */
export const SAVE_TRAVELLER = statement((p: Slots<TravellerRow>) =>
  kysely
    .updateTable('travellers')
    .set({
      clock_reading: p.clock_reading,
      clock_read_at: p.clock_read_at,
      clock_paused: p.clock_paused,
      timeline_id: p.timeline_id,
      location: p.location,
      journey_travel_id: p.journey_travel_id,
      version: sql<string>`version + 1`,
    })
    .where('account_id', '=', p.account_id),
);
