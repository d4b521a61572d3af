import { kysely, type Slots, statement } from '../kysely';

/** A timeline of the account by its id: the busiest read of timelines (every GET of a timeline). */
export const FIND_TIMELINE = statement((p: Slots<{ readonly accountId: string; readonly timelineId: string }>) =>
  kysely
    .selectFrom('timelines')
    .select([
      'account_id as accountId',
      'id',
      'name',
      'destination_time as destinationTime',
      'created_at as createdAt',
      'status',
      'window_minutes as windowMinutes',
    ])
    .where('account_id', '=', p.accountId)
    .where('id', '=', p.timelineId),
);
