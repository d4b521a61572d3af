import type { AttemptResult } from '../domain/webhook-attempt';

/** One message as one attempt sends it. */
export interface OutgoingWebhook {
  /** The endpoint's URL, as stored: parsed, its scheme checked, when it was accepted. */
  readonly url: string;
  /** `msg_…`: the `webhook-id` of every attempt. */
  readonly messageId: string;
  /** The rendered body, sent byte for byte on every attempt. */
  readonly body: string;
  /** The secrets that sign it: the current one, and a rolled one for its last day. */
  readonly secrets: readonly string[];
  /** The trace of the write that caused the message (RecordedMessage.origin), for the attempt's span to link to. */
  readonly origin: string | null;
}

/**
 * Sends one attempt: checks where the URL leads now, signs, POSTs, reads what came back. It never
 * throws for what the endpoint or the network did: that is the result, recorded as the attempt.
 */
export interface WebhookSender {
  send(webhook: OutgoingWebhook): Promise<AttemptResult>;
}
