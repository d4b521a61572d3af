import { type AttemptOutcome, attemptOutcome } from '../../domain/webhook-attempt-outcome';
import type { AttemptResult } from '../../domain/webhook-attempt';
import { signingSecrets } from '../../domain/webhook-endpoint';
import type { ForegroundWork } from '../../ports/foreground-work';
import type { WallClock } from '../../ports/wall-clock';
import type { WebhookDeliveries, WebhookPayloads } from '../../ports/webhook-deliveries';
import type { DeliveryJob } from '../../ports/webhook-jobs';
import type { WebhookSender } from '../../ports/webhook-sender';

/** The service's retry schedule (WEBHOOK_RETRY_SCHEDULE) and the draw of its jitter. */
export interface RetryPolicy {
  readonly scheduleSeconds: readonly number[];
  readonly random: () => number;
}

/**
 * How long an attempt waits at most for its account's own requests waiting in this process: a
 * second's wait for each of the 4 attempts an endpoint has under way at once.
 */
export const GIVE_WAY_AT_MOST_MS = 1_000;

/**
 * What became of a due attempt: nothing to send, or the attempt and what follows it; either after
 * `gaveWayMs` given way to its account's requests.
 */
export type DeliveryReport = { readonly gaveWayMs: number } & (
  | { readonly sent: false; readonly why: 'gone' | 'not_pending' | 'endpoint_disabled' }
  | {
      readonly sent: true;
      readonly attempt: number;
      readonly result: AttemptResult;
      readonly outcome: AttemptOutcome;
      /** False: another run of the same attempt recorded first; this one's result is not kept. */
      readonly recorded: boolean;
    }
);

/**
 * One attempt of a message to its endpoint (docs/webhooks.md, "Delivering"), once its account's
 * requests waiting in this process have gone ahead (for a second at most): its body rendered on
 * the first attempt and kept with its record, so every attempt and resend sends the same bytes; signed by the
 * endpoint's secrets; sent to where its URL leads now, if that is allowed; then the attempt, the
 * message's state, the endpoint's and the next attempt's job recorded together. A message deleted
 * with its endpoint, or already delivered or failed, is not sent; nor one whose endpoint is
 * disabled, which fails it (docs/webhooks.md, "A disabled endpoint").
 */
export class DeliverWebhookMessage {
  constructor(
    private readonly foreground: ForegroundWork,
    private readonly deliveries: WebhookDeliveries,
    private readonly payloads: WebhookPayloads,
    private readonly sender: WebhookSender,
    private readonly clock: WallClock,
    private readonly retries: RetryPolicy,
  ) {}

  async execute(job: DeliveryJob): Promise<DeliveryReport> {
    // The account's own requests first: an account writing faster than this process serves it
    // finds its writes as fast as without an endpoint, and its deliveries catch up after.
    const gaveWayMs = await this.foreground.giveWay(job.accountId, GIVE_WAY_AT_MOST_MS);
    const found = await this.deliveries.find(job);
    if (!found) return { gaveWayMs, sent: false, why: 'gone' };
    const { message, endpoint } = found;
    if (message.state !== 'pending') return { gaveWayMs, sent: false, why: 'not_pending' };
    if (endpoint.status !== 'enabled') {
      // Failed, as disabling the endpoint failed its other messages: pending, it would wait forever.
      await this.deliveries.failOfDisabledEndpoint(job);
      return { gaveWayMs, sent: false, why: 'endpoint_disabled' };
    }

    // Rendered from the recorded row alone, so that an attempt whose record was lost (its process
    // died) is sent again as the same bytes; kept by the first record, so that a later version of
    // the service still sends them.
    const body = message.body ?? this.payloads.render(message);
    const attemptedAt = this.clock.now();
    const secrets = signingSecrets(endpoint, attemptedAt);
    const result = await this.sender.send({
      url: endpoint.url,
      messageId: message.id,
      body,
      secrets,
      origin: message.origin,
    });
    const attempt = message.attempts + 1;
    const outcome = attemptOutcome({
      result,
      attempt,
      lastAttempt: message.lastAttempt,
      scheduleSeconds: this.retries.scheduleSeconds,
      failingSince: endpoint.failingSince,
      now: this.clock.now(),
      random: this.retries.random,
    });
    const recorded = await this.deliveries.record({
      job,
      attemptsBefore: message.attempts,
      body,
      attemptedAt,
      result,
      outcome,
    });
    return { gaveWayMs, sent: true, attempt, result, outcome, recorded };
  }
}
