import { sql } from 'kysely';
import { kysely, type Slots, statement } from '../kysely';

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

/** The messages of `subjects` for each enabled endpoint subscribed to the type, and their jobs: how many. */
export const RECORD_MESSAGES = statement((p: Slots<Recording>) =>
  kysely.selectNoFrom(
    sql<number>`record_webhook_messages(${p.messageType}::text, ${p.subjects}::jsonb, ${p.oncePerSubject}::boolean)`.as(
      'recorded',
    ),
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

/** When the oldest message not yet delivered was recorded, by the partial index of pending messages. */
export const OLDEST_PENDING_MESSAGE = statement(() =>
  kysely
    .selectFrom('webhook_messages')
    .select((eb) => eb.fn.min('created_at').as('recorded_at'))
    .where('state', '=', sql.lit('pending')),
);
