import { sql } from 'kysely';
import { kysely, type RowOf, type Slots, statement } from '../kysely';

// The webhooks' statements call the functions of migration 20261129082908_webhook_recording, which
// the database's triggers call too: a message and its delivery job are made one way, whoever asks.

interface Delivery {
  readonly accountId: string;
  readonly messageId: string;
  readonly endpointId: string;
  readonly at: Date;
}

/** One attempt of a message, a job of the queue webhook-delivery due at `at`. */
export const ENQUEUE_DELIVERY = statement((p: Slots<Delivery>) =>
  kysely.selectNoFrom(
    sql<string>`enqueue_webhook_delivery(${p.accountId}::text, ${p.messageId}::text, ${p.endpointId}::text,
                                         ${p.at}::timestamptz)`.as('job'),
  ),
);

interface Check {
  readonly accountId: string;
  readonly timelineId: string;
  readonly at: Date;
}

/** A check of a timeline's window, a job of the queue webhook-window-check due at `at`. */
export const ENQUEUE_WINDOW_CHECK = statement((p: Slots<Check>) =>
  kysely.selectNoFrom(
    sql<null>`enqueue_window_check(${p.accountId}::text, ${p.timelineId}::text, ${p.at}::timestamptz)`.as('job'),
  ),
);

interface Recording {
  readonly messageType: string;
  /** A JSON array of the messages' subjects, each an object with its account_id and id. */
  readonly subjects: string;
  readonly oncePerSubject: boolean;
}

/**
 * The messages of `subjects` for each enabled endpoint subscribed to the type, each waiting in the
 * outbox for the relay to give it its job: how many.
 */
export const RECORD_MESSAGES = statement((p: Slots<Recording>) =>
  kysely.selectNoFrom(
    sql<number>`record_webhook_messages(${p.messageType}::text, ${p.subjects}::jsonb, ${p.oncePerSubject}::boolean)`.as(
      'recorded',
    ),
  ),
);

interface Relay {
  /** Due jobs an endpoint may have waiting for a worker; the relay adds none past them. */
  readonly perEndpoint: number;
  readonly atMost: number;
}

/** Messages waiting in the outbox given their jobs (one relay at a time): how many, -1 while another relay works. */
export const RELAY_MESSAGES = statement((p: Slots<Relay>) =>
  kysely.selectNoFrom(
    sql<number>`relay_webhook_messages_when_free(${p.perEndpoint}::integer, ${p.atMost}::integer)`.as('relayed'),
  ),
);

interface EndpointRecording {
  readonly accountId: string;
  readonly endpointId: string;
  readonly messageType: string;
  /** A JSON object: what the message is about. */
  readonly subject: string;
}

/** One message for one endpoint, whatever it subscribes to, and its job: its id, or null for no such endpoint. */
export const RECORD_MESSAGE = statement((p: Slots<EndpointRecording>) =>
  kysely.selectNoFrom(
    sql<string | null>`record_webhook_message(${p.accountId}::text, ${p.endpointId}::text, ${p.messageType}::text,
                                              ${p.subject}::jsonb)`.as('message_id'),
  ),
);

/**
 * When the oldest message not yet delivered was recorded, pending or still in the outbox
 * (oldest_undelivered_message_at, migration 20261130070000_webhook_outbox_carries_messages).
 */
export const OLDEST_PENDING_MESSAGE = statement(() =>
  kysely.selectNoFrom(sql<Date | null>`oldest_undelivered_message_at()`.as('recorded_at')),
);

interface AttemptRecord {
  readonly accountId: string;
  readonly messageId: string;
  readonly endpointId: string;
  /** The attempts recorded when the message was read: the attempt counts only if none came since. */
  readonly attemptsBefore: number;
  /** The bytes sent: the message's body from now on, unless one is kept already. */
  readonly body: string;
  /** The message's state after it: pending (a retry follows), delivered or failed. */
  readonly state: string;
  readonly attemptedAt: Date;
  readonly status: number | null;
  readonly error: string | null;
  readonly durationMs: number;
  readonly answer: string | null;
  readonly nextAttemptAt: Date | null;
  readonly failingSince: Date | null;
  /** Why the endpoint is disabled by this attempt (gone, failing); null leaves its status alone. */
  readonly disable: string | null;
}

interface DueMessage {
  readonly accountId: string;
  readonly messageId: string;
}

/** A due attempt's message and its endpoint, in one read: no row when either is gone. */
export const DUE_MESSAGE = statement((p: Slots<DueMessage>) =>
  kysely
    .selectFrom('webhook_messages as m')
    .innerJoin('webhook_endpoints as e', (join) =>
      join.onRef('e.account_id', '=', 'm.account_id').onRef('e.id', '=', 'm.endpoint_id'),
    )
    .where('m.account_id', '=', p.accountId)
    .where('m.id', '=', p.messageId)
    .select([
      'm.account_id',
      'm.id',
      'm.endpoint_id',
      'm.event_type',
      'm.subject',
      'm.body',
      'm.created_at',
      'm.state',
      'm.attempts',
      'm.last_attempt',
      'e.url',
      'e.description',
      'e.event_types',
      'e.status',
      'e.disabled_reason',
      'e.secret',
      'e.previous_secret',
      'e.previous_secret_until',
      'e.failing_since',
      'e.created_at as endpoint_created_at',
    ]),
);

interface AttemptListing {
  readonly accountId: string;
  readonly endpointId: string;
  readonly limit: number;
}

/** The last attempt of the page before: a page goes on after it. */
interface AttemptCursor {
  readonly afterAttemptedAt: Date;
  readonly afterMessageId: string;
  readonly afterAttempt: number;
}

/**
 * A page of an endpoint's attempts with each one's event type, in one read: an ordered range of
 * the index webhook_attempts_by_endpoint, cut at the page size, each attempt's message by its key.
 */
function attemptListing(p: Slots<AttemptListing>, after: Slots<AttemptCursor> | null) {
  return (
    kysely
      .selectFrom('webhook_attempts as a')
      .innerJoin('webhook_messages as m', (join) =>
        join.onRef('m.account_id', '=', 'a.account_id').onRef('m.id', '=', 'a.message_id'),
      )
      .where('a.account_id', '=', p.accountId)
      .where('a.endpoint_id', '=', p.endpointId)
      // After the cursor in the listing's order. The bound on attempted_at alone is where the index
      // range starts; the rest sifts the attempts of the cursor's own instant.
      .$call((query) =>
        after
          ? query.where(({ eb, and, or, refTuple, tuple }) =>
              and([
                eb('a.attempted_at', '<=', after.afterAttemptedAt),
                or([
                  eb('a.attempted_at', '<', after.afterAttemptedAt),
                  eb(refTuple('a.message_id', 'a.attempt'), '>', tuple(after.afterMessageId, after.afterAttempt)),
                ]),
              ]),
            )
          : query,
      )
      .select([
        'a.message_id as messageId',
        'm.event_type as eventType',
        'a.attempt',
        'a.attempted_at as attemptedAt',
        'a.status',
        'a.error',
        'a.duration_ms as durationMs',
        'a.answer',
        'a.next_attempt_at as nextAttemptAt',
      ])
      .orderBy('a.attempted_at', 'desc')
      .orderBy('a.message_id')
      .orderBy('a.attempt')
      .limit(p.limit)
  );
}

/**
 * The deliveries listing, a statement per form rather than one whose cursor may be null: a
 * `$n IS NULL OR ...` condition would leave a generic plan no index bound to start from.
 */
export const ENDPOINT_ATTEMPTS = {
  first: statement((p: Slots<AttemptListing>) => attemptListing(p, null)),
  after: statement((p: Slots<AttemptListing & AttemptCursor>) => attemptListing(p, p)),
} as const;

/** An attempt on a page of the deliveries listing. */
export type ListedAttemptRow = RowOf<typeof ENDPOINT_ATTEMPTS.first>;

interface Resend {
  readonly accountId: string;
  readonly endpointId: string;
  readonly messageId: string;
  readonly at: Date;
}

/**
 * A message of the endpoint pending again for one more attempt due at `at`, its last (no retry
 * follows it), and that attempt's job, in one statement: no row when the endpoint has no such message.
 */
export const RESEND_MESSAGE = statement((p: Slots<Resend>) =>
  kysely
    .with('resent', (db) =>
      db
        .updateTable('webhook_messages')
        .set({
          state: sql.lit('pending'),
          last_attempt: sql<number>`${sql.ref('attempts')} + 1`,
          next_attempt_at: sql<Date>`${p.at}::timestamptz`,
        })
        .where('account_id', '=', p.accountId)
        .where('id', '=', p.messageId)
        .where('endpoint_id', '=', p.endpointId)
        .returning(['account_id', 'id', 'endpoint_id', 'event_type', 'attempts']),
    )
    .selectFrom('resent')
    .select([
      'resent.id',
      'resent.event_type',
      'resent.attempts',
      sql<string>`enqueue_webhook_delivery(${sql.ref('resent.account_id')}, ${sql.ref('resent.id')},
                                           ${sql.ref('resent.endpoint_id')}, ${p.at}::timestamptz)`.as('job'),
    ]),
);

/**
 * An attempt's record, in one statement: the message's count, state and body (unless kept), only
 * if no other run of the same attempt counted first; then, only if it did, the attempt's row, the
 * endpoint's failing_since (and its disabling) and the next attempt's job. Answers one row if it
 * counted. The endpoint's row is written only when that changes it: a delivery to a healthy
 * endpoint leaves it alone.
 */
export const RECORD_ATTEMPT = statement((p: Slots<AttemptRecord>) =>
  kysely
    .with('counted', (db) =>
      db
        .updateTable('webhook_messages')
        .set({
          attempts: sql`${p.attemptsBefore}::int + 1`,
          state: p.state,
          next_attempt_at: p.nextAttemptAt,
          body: sql`COALESCE(body, ${p.body}::text)`,
        })
        .where('account_id', '=', p.accountId)
        .where('id', '=', p.messageId)
        .where('attempts', '=', p.attemptsBefore)
        .where('state', '=', sql.lit('pending'))
        .returning('attempts'),
    )
    .with('attempt', (db) =>
      db
        .insertInto('webhook_attempts')
        .columns([
          'account_id',
          'message_id',
          'attempt',
          'endpoint_id',
          'attempted_at',
          'status',
          'error',
          'duration_ms',
          'answer',
          'next_attempt_at',
        ])
        .expression((eb) =>
          eb
            .selectFrom('counted')
            // Typed here: a parameter in a SELECT's list is text unless cast.
            .select([
              sql<string>`${p.accountId}::text`.as('account_id'),
              sql<string>`${p.messageId}::text`.as('message_id'),
              'counted.attempts',
              sql<string>`${p.endpointId}::text`.as('endpoint_id'),
              sql<Date>`${p.attemptedAt}::timestamptz`.as('attempted_at'),
              sql<number | null>`${p.status}::int`.as('status'),
              sql<string | null>`${p.error}::text`.as('error'),
              sql<number>`${p.durationMs}::int`.as('duration_ms'),
              sql<string | null>`${p.answer}::text`.as('answer'),
              sql<Date | null>`${p.nextAttemptAt}::timestamptz`.as('next_attempt_at'),
            ]),
        )
        .returning('attempt'),
    )
    .with('endpoint', (db) =>
      db
        .updateTable('webhook_endpoints')
        .set({
          failing_since: p.failingSince,
          status: sql`CASE WHEN ${p.disable}::text IS NULL THEN status ELSE 'disabled' END`,
          disabled_reason: sql`CASE WHEN ${p.disable}::text IS NULL THEN disabled_reason ELSE ${p.disable}::text END`,
        })
        .where('account_id', '=', p.accountId)
        .where('id', '=', p.endpointId)
        .where(
          sql<boolean>`failing_since IS DISTINCT FROM ${p.failingSince}::timestamptz
                       OR ${p.disable}::text IS NOT NULL`,
        )
        .where((eb) => eb.exists(eb.selectFrom('counted').select('counted.attempts')))
        .returning('id'),
    )
    .with('next', (db) =>
      db
        .selectFrom('counted')
        .select(
          sql<string>`enqueue_webhook_delivery(${p.accountId}::text, ${p.messageId}::text, ${p.endpointId}::text,
                                               ${p.nextAttemptAt}::timestamptz)`.as('job'),
        )
        .where(sql<boolean>`${p.nextAttemptAt}::timestamptz IS NOT NULL`),
    )
    // A SELECT in WITH runs only where it is read: the next job is read here so that it is made.
    .selectFrom('counted')
    .select((eb) => ['counted.attempts', eb.selectFrom('next').select('next.job').as('next_job')]),
);
