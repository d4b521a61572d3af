// The bodies webhook endpoints receive (docs/webhooks.md, "Payloads"): Standard Webhooks'
// {"type", "timestamp", "data"}, the data in the API's own shapes, rendered from what the writing
// statement recorded (webhook_messages.subject), never read again later: a message says what the
// change was, not what the record became since.
import { formatDateTime } from '../../../core/domain/date-time-format';
import type { EventKind, ListedEvent } from '../../../core/domain/timeline-event';
import { Timeline, type TimelineStatus } from '../../../core/domain/timeline';
import type { RecordedMessage, WebhookPayloads } from '../../../core/ports/webhook-deliveries';
import { presentEvent, presentTimeline } from './resources';

const EVENT_KINDS: readonly EventKind[] = ['arrival', 'anchor_set', 'item_retrieved', 'manipulation'];
const TIMELINE_STATUSES: readonly TimelineStatus[] = ['open', 'active', 'completed', 'expired'];

/** A field of a recorded subject: the row's column, as PostgreSQL's to_jsonb wrote it. */
type Subject = Readonly<Record<string, unknown>>;

export class ApiWebhookPayloads implements WebhookPayloads {
  render(message: RecordedMessage): string {
    const subject = subjectOf(message);
    return JSON.stringify({
      type: message.eventType,
      timestamp: formatDateTime(message.createdAt),
      data: dataOf(message.eventType, subject),
    });
  }
}

/**
 * `event`: the event exactly as the listings show it, and its `revision` (manipulations applied):
 * messages are not ordered, so a receiver keeps, of one event, the one with the highest revision.
 * `timeline`: as GET /v1/timelines/{id} shows it when its window closed. `endpoint_id`: the
 * endpoint a test was sent to.
 */
function dataOf(type: string, subject: Subject): Record<string, unknown> {
  switch (type) {
    case 'event.recorded':
    case 'event.updated': {
      const event = eventOf(subject);
      return { event: presentEvent(event), revision: event.revision };
    }
    case 'timeline.window_closed':
      return { timeline: presentTimeline(timelineOf(subject)) };
    case 'webhook.test':
      return { endpoint_id: text(subject, 'endpoint_id') };
    default:
      throw new Error(`A webhook message of type ${type} has no payload the service renders.`);
  }
}

function subjectOf(message: RecordedMessage): Subject {
  const { subject } = message;
  if (typeof subject !== 'object' || subject === null || Array.isArray(subject))
    throw new Error(`Webhook message ${message.id} has no subject to render.`);
  return subject as Subject;
}

function eventOf(row: Subject): ListedEvent {
  return {
    accountId: text(row, 'account_id'),
    id: text(row, 'id'),
    timelineId: text(row, 'timeline_id'),
    kind: oneOf(row, 'kind', EVENT_KINDS),
    time: instant(row, 'time'),
    originalTime: instant(row, 'original_time'),
    description: text(row, 'description'),
    location: text(row, 'location'),
    revision: whole(row, 'revision'),
  };
}

function timelineOf(row: Subject): Timeline {
  const destination = row.destination_time;
  const window = row.window_minutes;
  return Timeline.restore({
    accountId: text(row, 'account_id'),
    id: text(row, 'id'),
    name: text(row, 'name'),
    destinationTime: destination === null || destination === undefined ? null : instant(row, 'destination_time'),
    createdAt: instant(row, 'created_at'),
    status: oneOf(row, 'status', TIMELINE_STATUSES),
    windowMinutes: window === null || window === undefined ? null : whole(row, 'window_minutes'),
  });
}

function text(row: Subject, column: string): string {
  const value = row[column];
  if (typeof value !== 'string') throw new Error(`A webhook message's subject has no text ${column}.`);
  return value;
}

function oneOf<T extends string>(row: Subject, column: string, known: readonly T[]): T {
  const value = text(row, column);
  const found = known.find((each) => each === value);
  if (found === undefined) throw new Error(`A webhook message's subject has a ${column} the service does not know.`);
  return found;
}

function whole(row: Subject, column: string): number {
  const value = row[column];
  if (typeof value !== 'number' || !Number.isInteger(value))
    throw new Error(`A webhook message's subject has no whole number ${column}.`);
  return value;
}

/** to_jsonb writes a timestamptz as ISO 8601 with its offset ("2000-01-01T00:00:00+00:00"). */
function instant(row: Subject, column: string): Date {
  const date = new Date(text(row, column));
  if (Number.isNaN(date.getTime())) throw new Error(`A webhook message's subject has no instant ${column}.`);
  return date;
}
