// The changes of a place's events after a stream's position, in the order the account's units of
// work wrote them (event-feed.ts). Compiled once; its plan is read back by
// tests/integration/repositories/event-changes-plan.server.test.ts.
import { type Slots, kysely, statement } from '../kysely';

interface Changes {
  readonly accountId: string;
  readonly timelineId: string;
  /** textDigest of the place watched: an event there, or so named. */
  readonly placeKey: string;
  readonly start: Date;
  readonly end: Date;
  /** After this version of the account, and within it after `afterId` (null: after all of it). */
  readonly afterVersion: string;
  readonly afterId: string | null;
  readonly limit: number;
}

/**
 * The events last written after the position, at the place (or so named) on the timeline, whose
 * time is in the range now, or was before any manipulation applied after the position (so a stream
 * hears an event leave its range, however many times it moved meanwhile). One index range from the
 * position on (events by account, version, id), the rest a filter: a stream reads from where it
 * stood a moment ago, a few units of work back.
 */
export const EVENT_CHANGES = statement((p: Slots<Changes>) =>
  kysely
    .selectFrom('events as e')
    .where('e.account_id', '=', p.accountId)
    .where('e.account_version', '>=', p.afterVersion)
    // `id > NULL` is never true: after a whole version, only later versions follow.
    .where((eb) => eb.or([eb('e.account_version', '>', p.afterVersion), eb('e.id', '>', p.afterId)]))
    .where('e.timeline_id', '=', p.timelineId)
    .where((eb) => eb.or([eb('e.location_key', '=', p.placeKey), eb('e.description_key', '=', p.placeKey)]))
    .where((eb) =>
      eb.or([
        eb.and([eb('e.time', '>=', p.start), eb('e.time', '<=', p.end)]),
        eb.exists(
          eb
            .selectFrom('event_manipulations as m')
            .select('m.revision')
            .whereRef('m.account_id', '=', 'e.account_id')
            .whereRef('m.event_id', '=', 'e.id')
            .where('m.account_version', '>=', p.afterVersion)
            .where('m.from_time', '>=', p.start)
            .where('m.from_time', '<=', p.end),
        ),
      ]),
    )
    .select([
      'e.id',
      'e.kind',
      'e.time',
      'e.original_time as originalTime',
      'e.description',
      'e.location',
      'e.subject_id as subjectId',
      'e.recorded_at as recordedAt',
      'e.revision',
      'e.account_version as version',
      'e.writer_trace as origin',
    ])
    .orderBy('e.account_version')
    .orderBy('e.id')
    .limit(p.limit),
);
