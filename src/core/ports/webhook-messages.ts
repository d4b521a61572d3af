import type { Timeline } from '../domain/timeline';
import type { QueuedMessage } from './webhook-deliveries';

/**
 * The messages an account's webhook endpoints are sent. Those about events are recorded by the
 * database in the statement that changes the event (so a change committed always has its
 * messages); those no write causes are recorded here, each with the job that delivers it.
 */
export interface WebhookMessages {
  /**
   * timeline.window_closed about `timeline` as the service shows it, for each enabled endpoint of
   * its account subscribed to the type: once per endpoint, however often asked. Answers how many
   * were recorded by this call.
   */
  recordWindowClosed(timeline: Timeline): Promise<number>;
  /**
   * webhook.test for the endpoint, whatever it subscribes to, with its job due now; null when the
   * account has no such endpoint (deleted meanwhile).
   */
  recordTest(endpoint: { readonly accountId: string; readonly endpointId: string }): Promise<QueuedMessage | null>;
}
