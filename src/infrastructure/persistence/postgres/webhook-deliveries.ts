// The deliveries of webhook messages on PostgreSQL (docs/webhooks.md, "Delivering"): a due
// attempt's message and endpoint read in one statement, and its record (with the body the first
// attempt sent) written in one more, with the next attempt's job (enqueue_webhook_delivery, as
// the recording triggers make the first). Outside the account's units of work: an attempt changes
// no state of the account's journeys, and touches only the delivery columns of its endpoint, which
// an owner's change never writes.
import { ATTEMPT_ERRORS } from '../../../core/domain/webhook-attempt';
import type {
  FinishedDelivery,
  MessageInput,
  QueuedMessage,
  RecordedAttempt,
  RecordedMessage,
  WebhookAttemptCursor,
  WebhookDeliveries,
} from '../../../core/ports/webhook-deliveries';
import type { DeliveryJob } from '../../../core/ports/webhook-jobs';
import type { PrismaClient, WebhookEndpoint as EndpointRow } from '../../database/driver/generated/client';
import type { SqlRunner } from '../../database/driver/sql-runner';
import { endpointOf } from './repositories/webhook-endpoint-repository';
import type { RowOf } from './kysely';
import {
  DUE_MESSAGE,
  ENDPOINT_ATTEMPTS,
  type ListedAttemptRow,
  RECORD_ATTEMPT,
  RESEND_MESSAGE,
} from './statements/webhooks';

const STATES = ['pending', 'delivered', 'failed'] as const;

export class PostgresWebhookDeliveries implements WebhookDeliveries {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly sql: SqlRunner,
  ) {}

  async find(job: DeliveryJob) {
    const [row] = await DUE_MESSAGE.run(this.sql, job);
    return row ? { message: messageOf(row), endpoint: endpointOf(endpointRowOf(row)) } : null;
  }

  async listAttempts(
    endpoint: { readonly accountId: string; readonly endpointId: string },
    page: { readonly limit: number; readonly after: WebhookAttemptCursor | null },
  ): Promise<RecordedAttempt[]> {
    const listing = { accountId: endpoint.accountId, endpointId: endpoint.endpointId, limit: page.limit };
    const { after } = page;
    const rows = after
      ? await ENDPOINT_ATTEMPTS.after.run(this.sql, {
          ...listing,
          afterAttemptedAt: after.attemptedAt,
          afterMessageId: after.messageId,
          afterAttempt: after.attempt,
        })
      : await ENDPOINT_ATTEMPTS.first.run(this.sql, listing);
    return rows.map(attemptOf);
  }

  async failOfDisabledEndpoint(job: DeliveryJob): Promise<void> {
    await this.prisma.webhookMessage.updateMany({
      where: { accountId: job.accountId, id: job.messageId, state: 'pending', endpoint: { status: 'disabled' } },
      data: { state: 'failed', nextAttemptAt: null },
    });
  }

  async resend({ accountId, endpointId, messageId }: MessageInput, at: Date): Promise<QueuedMessage | null> {
    const [row] = await RESEND_MESSAGE.run(this.sql, { accountId, endpointId, messageId, at });
    return row ? { id: row.id, eventType: row.event_type, state: 'pending', attempts: row.attempts } : null;
  }

  async record({ job, attemptsBefore, body, attemptedAt, result, outcome }: FinishedDelivery): Promise<boolean> {
    const counted = await RECORD_ATTEMPT.run(this.sql, {
      ...job,
      attemptsBefore,
      body,
      state: outcome.message,
      attemptedAt,
      status: result.status,
      error: result.error,
      durationMs: Math.round(result.durationMs),
      answer: result.answer,
      nextAttemptAt: outcome.kind === 'retry' ? outcome.nextAttemptAt : null,
      failingSince: outcome.failingSince,
      disable: outcome.disable,
    });
    return counted.length === 1;
  }
}

type DueRow = RowOf<typeof DUE_MESSAGE>;

function messageOf(row: DueRow): RecordedMessage {
  const state = STATES.find((known) => known === row.state);
  if (!state) throw new Error(`Webhook message ${row.id} has a state the service does not know: ${row.state}.`);
  return {
    accountId: row.account_id,
    id: row.id,
    endpointId: row.endpoint_id,
    eventType: row.event_type,
    subject: row.subject,
    body: row.body,
    createdAt: row.created_at,
    state,
    attempts: row.attempts,
    origin: writerTraceOf(row.subject),
    lastAttempt: row.last_attempt,
  };
}

/** The endpoint's columns of a due message's row, as the endpoints' repository reads them. */
function endpointRowOf(row: DueRow): EndpointRow {
  return {
    accountId: row.account_id,
    id: row.endpoint_id,
    url: row.url,
    description: row.description,
    eventTypes: row.event_types,
    status: row.status,
    disabledReason: row.disabled_reason,
    secret: row.secret,
    previousSecret: row.previous_secret,
    previousSecretUntil: row.previous_secret_until,
    failingSince: row.failing_since,
    createdAt: row.endpoint_created_at,
  };
}

function attemptOf(row: ListedAttemptRow): RecordedAttempt {
  const error = row.error === null ? null : ATTEMPT_ERRORS.find((known) => known === row.error);
  if (error === undefined)
    throw new Error(`Webhook attempt ${row.messageId}/${row.attempt} has an error the service does not know.`);
  return { ...row, error, answer: row.answer ?? '' };
}

/** The writer's trace an event's row carries (events.writer_trace), as its message's subject keeps the row. */
function writerTraceOf(subject: unknown): string | null {
  if (typeof subject !== 'object' || subject === null || !('writer_trace' in subject)) return null;
  return typeof subject.writer_trace === 'string' ? subject.writer_trace : null;
}
