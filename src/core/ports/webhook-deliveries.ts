import type { AttemptError, AttemptResult } from '../domain/webhook-attempt';
import type { AttemptOutcome } from '../domain/webhook-attempt-outcome';
import type { WebhookEndpoint } from '../domain/webhook-endpoint';
import type { DeliveryJob } from './webhook-jobs';

/** A message as recorded: what it is about, and its body once the first attempt rendered it. */
export interface RecordedMessage {
  readonly accountId: string;
  readonly id: string;
  readonly endpointId: string;
  readonly eventType: string;
  /** What the message is about, as the statement that caused it wrote it (webhook_messages.subject). */
  readonly subject: unknown;
  /** The payload as first sent, byte for byte; null until an attempt's record keeps it. */
  readonly body: string | null;
  readonly createdAt: Date;
  readonly state: 'pending' | 'delivered' | 'failed';
  /** Attempts recorded so far. */
  readonly attempts: number;
  /**
   * The W3C traceparent of the write that caused the message, when it was traced (an event's
   * writer_trace, kept in its subject): each attempt's span links to it. Null for the others.
   */
  readonly origin: string | null;
  /** Set by a resend: the attempt after which a failure fails the message; null: the schedule's last. */
  readonly lastAttempt: number | null;
}

/** A message waiting for its next attempt, as a resend or a test answers it. */
export interface QueuedMessage {
  readonly id: string;
  readonly eventType: string;
  readonly state: 'pending';
  /** Attempts recorded so far. */
  readonly attempts: number;
}

/** Which message of which endpoint of which account. */
export interface MessageInput {
  readonly accountId: string;
  readonly endpointId: string;
  readonly messageId: string;
}

/** An attempt made, with what follows it, as one transaction records it. */
export interface FinishedDelivery {
  readonly job: DeliveryJob;
  /** The attempts recorded before this one: the attempt is recorded only if no other came first. */
  readonly attemptsBefore: number;
  /** The bytes sent: kept as the message's body unless one is kept already, for its later attempts. */
  readonly body: string;
  readonly attemptedAt: Date;
  readonly result: AttemptResult;
  readonly outcome: AttemptOutcome;
}

/** One attempt as the deliveries listing shows it. */
export interface RecordedAttempt {
  readonly messageId: string;
  readonly eventType: string;
  /** 1 for the first, counting on through retries and resends. */
  readonly attempt: number;
  readonly attemptedAt: Date;
  /** The answer's HTTP status; null when no answer's head arrived. */
  readonly status: number | null;
  readonly error: AttemptError | null;
  readonly durationMs: number;
  /** The first KiB of the answer's body. */
  readonly answer: string;
  /** When the retry this attempt scheduled is due; null when none followed it. */
  readonly nextAttemptAt: Date | null;
}

/** Position after which a page of an endpoint's attempts continues (newest first, then message and attempt). */
export interface WebhookAttemptCursor {
  readonly attemptedAt: Date;
  readonly messageId: string;
  readonly attempt: number;
}

/** The messages' deliveries: a due attempt's message and endpoint, its body, its record. */
export interface WebhookDeliveries {
  /**
   * The endpoint's attempts, newest first, at most `limit` of them after `after`: one read of the
   * index by endpoint and time, whatever the endpoint has accumulated.
   */
  listAttempts(
    endpoint: { readonly accountId: string; readonly endpointId: string },
    page: { readonly limit: number; readonly after: WebhookAttemptCursor | null },
  ): Promise<RecordedAttempt[]>;
  /** The message and its endpoint, of the job's account; null when either is gone (deleted meanwhile). */
  find(job: DeliveryJob): Promise<{ readonly message: RecordedMessage; readonly endpoint: WebhookEndpoint } | null>;
  /**
   * Fails the job's message if it is still pending and its endpoint still disabled, as disabling
   * the endpoint failed the others (a write's statement recorded it while the endpoint was being
   * disabled, or before); an endpoint enabled again meanwhile keeps it pending.
   */
  failOfDisabledEndpoint(job: DeliveryJob): Promise<void>;
  /**
   * The message again, whatever its state, as one more attempt due at `at` (its last: no retry
   * follows it), with its job, in one statement; null when the endpoint has no such message.
   */
  resend(message: MessageInput, at: Date): Promise<QueuedMessage | null>;
  /**
   * In one transaction: the attempt, the message's state and count, its body unless one is kept,
   * the endpoint's failing_since (and its disabling when the outcome says so), and the next
   * attempt's job when one follows.
   * False, recording nothing, when another attempt of the message was recorded since it was read
   * (a job run twice, its first process gone silent but not dead).
   */
  record(finished: FinishedDelivery): Promise<boolean>;
}

/** The body of a message as its endpoint receives it: Standard Webhooks' {"type", "timestamp", "data"}. */
export interface WebhookPayloads {
  render(message: RecordedMessage): string;
}
