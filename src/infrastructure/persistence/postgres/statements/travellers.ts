import { kysely, type Slots, statement } from '../kysely';

/** The account's traveller with its version (a bigint, which node-postgres answers as text). */
export const READ_TRAVELLER = statement((p: Slots<{ readonly accountId: string }>) =>
  kysely.selectFrom('travellers').selectAll().where('account_id', '=', p.accountId),
);

/** The version alone: whether anything of the account changed since a unit of work read it. */
export const TRAVELLER_VERSION = statement((p: Slots<{ readonly accountId: string }>) =>
  kysely.selectFrom('travellers').select('version').where('account_id', '=', p.accountId),
);
