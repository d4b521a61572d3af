import type { Timeline } from '../../../core/domain/timeline';
import { WEBHOOK_TEST_TYPE } from '../../../core/domain/webhook-endpoint';
import type { QueuedMessage } from '../../../core/ports/webhook-deliveries';
import type { WebhookMessages } from '../../../core/ports/webhook-messages';
import type { DatabaseNotice } from '../../database/driver/prisma-client';
import type { SqlRunner } from '../../database/driver/sql-runner';
import { OLDEST_PENDING_MESSAGE, RECORD_MESSAGE, RECORD_MESSAGES, RELAY_MESSAGES } from './statements/webhooks';

/**
 * A message type the service records itself, as it does a test (WEBHOOK_TEST_TYPE); the database
 * records event.recorded and event.updated.
 */
export const WINDOW_CLOSED = 'timeline.window_closed';

export class PostgresWebhookMessages implements WebhookMessages {
  constructor(private readonly sql: SqlRunner) {}

  async recordWindowClosed(timeline: Timeline): Promise<number> {
    const subjects = JSON.stringify([timelineSubject(timeline)]);
    const [row] = await RECORD_MESSAGES.run(this.sql, { messageType: WINDOW_CLOSED, subjects, oncePerSubject: true });
    return row?.recorded ?? 0;
  }

  async recordTest(endpoint: {
    readonly accountId: string;
    readonly endpointId: string;
  }): Promise<QueuedMessage | null> {
    // What a test is about: the endpoint it tests.
    const subject = JSON.stringify({ endpoint_id: endpoint.endpointId });
    const [row] = await RECORD_MESSAGE.run(this.sql, { ...endpoint, messageType: WEBHOOK_TEST_TYPE, subject });
    const id = row?.message_id;
    return id ? { id, eventType: WEBHOOK_TEST_TYPE, state: 'pending', attempts: 0 } : null;
  }

  /**
   * Gives messages waiting in the outbox their delivery jobs, each endpoint's oldest first, until it
   * has `perEndpoint` due and waiting for a worker, `atMost` in all: how many; BUSY (-1) when
   * another process's relay is at work.
   */
  async relay(perEndpoint: number, atMost: number): Promise<number> {
    const [row] = await RELAY_MESSAGES.run(this.sql, { perEndpoint, atMost });
    return row?.relayed ?? 0;
  }

  /** When the oldest message still pending was recorded; null when none is. */
  async oldestPendingAt(): Promise<Date | null> {
    const [row] = await OLDEST_PENDING_MESSAGE.run(this.sql, {});
    return row?.recorded_at ?? null;
  }
}

/**
 * A timeline as a message's subject: its row, as an event's message carries the event's row, with
 * the status the service shows (the window closed on it: expired, whatever the row still says).
 */
function timelineSubject(timeline: Timeline): Record<string, unknown> {
  return {
    account_id: timeline.accountId,
    id: timeline.id,
    name: timeline.name,
    destination_time: timeline.destinationTime?.toISOString() ?? null,
    created_at: timeline.createdAt.toISOString(),
    status: timeline.status,
    window_minutes: timeline.windowMinutes,
  };
}

/** What the database tells the connection whose statement recorded messages (record_webhook_messages). */
export interface RecordedMessages {
  readonly type: string;
  readonly count: number;
}

const RECORDED_NOTICE = 'webhook messages recorded';

/** The messages a notice of the database says were recorded, or null for any other notice. */
export function recordedMessagesOf(notice: DatabaseNotice): RecordedMessages | null {
  if (notice.message !== RECORDED_NOTICE || notice.detail === undefined) return null;
  const detail = parsed(notice.detail);
  if (typeof detail !== 'object' || detail === null || !('type' in detail) || !('count' in detail)) return null;
  const { type, count } = detail;
  return typeof type === 'string' && typeof count === 'number' ? { type, count } : null;
}

/** The JSON of a notice's detail; undefined when it is none (then the notice is not the function's). */
function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
