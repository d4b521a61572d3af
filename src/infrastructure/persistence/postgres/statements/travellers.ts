import { kysely, type RowOf, type Slots, statement } from '../kysely';

/**
 * The account's traveller and its version, where an optimistic unit of work starts from. The
 * version (a bigint) as text, as the unit of work keeps it and the guarded write sends it back.
 */
export const READ_TRAVELLER = statement((p: Slots<{ readonly accountId: string }>) =>
  kysely
    .selectFrom('travellers')
    .select((eb) => [
      'account_id as accountId',
      'clock_reading as clockReading',
      'clock_read_at as clockReadAt',
      'clock_paused as clockPaused',
      'timeline_id as timelineId',
      'location',
      'journey_travel_id as journeyTravelId',
      eb.cast<string>('version', 'text').as('version'),
    ])
    .where('account_id', '=', p.accountId),
);

/** The traveller's columns, named as the repository's TravellerRow names them, and its version. */
export type TravellerRead = RowOf<typeof READ_TRAVELLER>;
