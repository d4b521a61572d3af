import { WebhookEndpointDisabled } from '../../domain/errors';
import type { WebhookEndpoint } from '../../domain/webhook-endpoint';
import type { TransactionBoundary } from '../../ports/transaction-boundary';
import { type EndpointInput, ownedEndpoint } from './owned-endpoint';

/**
 * The account's endpoint, enabled: a message asked for by hand (a resend, a test) is refused for a
 * disabled one rather than queued for an attempt that would send nothing.
 */
export async function enabledEndpoint(
  transactions: TransactionBoundary,
  input: EndpointInput,
): Promise<WebhookEndpoint> {
  const endpoint = await transactions.read((repos) => ownedEndpoint(repos.webhookEndpoints, input));
  if (endpoint.status !== 'enabled') throw new WebhookEndpointDisabled(endpoint.id);
  return endpoint;
}
