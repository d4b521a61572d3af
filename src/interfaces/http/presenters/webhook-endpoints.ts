import { formatDateTime } from '../../../core/domain/date-time-format';
import type { WebhookEndpoint } from '../../../core/domain/webhook-endpoint';
import type { QueuedMessage, RecordedAttempt } from '../../../core/ports/webhook-deliveries';

/** An endpoint as the API answers it: its secrets never, but when it is made (presentNewWebhookEndpoint). */
export function presentWebhookEndpoint(endpoint: WebhookEndpoint) {
  return {
    id: endpoint.id,
    url: endpoint.url,
    event_types: [...endpoint.eventTypes],
    description: endpoint.description,
    status: endpoint.status,
    disabled_reason: endpoint.disabledReason,
    created_at: formatDateTime(endpoint.createdAt),
  };
}

/** The endpoint just made, with its secret: the only answer that carries it. */
export function presentNewWebhookEndpoint(endpoint: WebhookEndpoint) {
  return { ...presentWebhookEndpoint(endpoint), secret: endpoint.secret };
}

/** An attempt as the deliveries listing answers it. */
export function presentWebhookDelivery(attempt: RecordedAttempt) {
  return {
    message_id: attempt.messageId,
    event_type: attempt.eventType,
    attempt: attempt.attempt,
    attempted_at: formatDateTime(attempt.attemptedAt),
    status: attempt.status,
    error: attempt.error,
    duration_ms: attempt.durationMs,
    answer: attempt.answer,
    next_attempt_at: attempt.nextAttemptAt && formatDateTime(attempt.nextAttemptAt),
  };
}

/** A message queued by a resend or a test. */
export function presentQueuedMessage(message: QueuedMessage) {
  return { message_id: message.id, event_type: message.eventType, state: message.state, attempts: message.attempts };
}
