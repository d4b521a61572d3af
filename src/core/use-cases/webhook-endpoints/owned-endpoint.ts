import { WebhookEndpointNotFound } from '../../domain/errors';
import type { WebhookEndpoint } from '../../domain/webhook-endpoint';
import type { WebhookEndpointReads } from '../../ports/repositories';

/** The account's endpoint of that id; none, or another account's, is refused alike. */
export async function ownedEndpoint(
  endpoints: WebhookEndpointReads,
  input: { readonly accountId: string; readonly endpointId: string },
): Promise<WebhookEndpoint> {
  const endpoint = await endpoints.findForAccount(input.accountId, input.endpointId);
  if (!endpoint) throw new WebhookEndpointNotFound(input.endpointId);
  return endpoint;
}

/** Which endpoint of which account a use case acts on. */
export interface EndpointInput {
  readonly accountId: string;
  readonly endpointId: string;
}
