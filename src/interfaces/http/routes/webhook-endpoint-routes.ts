import type { Container } from 'inversify';
import { MAX_WEBHOOK_ENDPOINTS, SECRET_OVERLAP_MS } from '../../../core/domain/webhook-endpoint';
import { CreateWebhookEndpoint } from '../../../core/use-cases/webhook-endpoints/create-webhook-endpoint';
import { DeleteWebhookEndpoint } from '../../../core/use-cases/webhook-endpoints/delete-webhook-endpoint';
import {
  DisableWebhookEndpoint,
  EnableWebhookEndpoint,
} from '../../../core/use-cases/webhook-endpoints/endpoint-state';
import { GetWebhookEndpoint } from '../../../core/use-cases/webhook-endpoints/get-webhook-endpoint';
import { ListWebhookDeliveries } from '../../../core/use-cases/webhook-endpoints/list-webhook-deliveries';
import { ListWebhookEndpoints } from '../../../core/use-cases/webhook-endpoints/list-webhook-endpoints';
import { ResendWebhookMessage } from '../../../core/use-cases/webhook-endpoints/resend-webhook-message';
import { RollWebhookSecret } from '../../../core/use-cases/webhook-endpoints/roll-webhook-secret';
import { SendTestWebhook } from '../../../core/use-cases/webhook-endpoints/send-test-webhook';
import { creationCursorOf, deliveryCursorOf, nextCreationCursor, nextDeliveryCursor } from '../cursor';
import { EXAMPLE_IDS } from '../dtos/responses/ids';
import {
  NewWebhookEndpointResponse,
  WebhookDeliveryPageResponse,
  WebhookEndpointPageResponse,
  WebhookEndpointResponse,
  WebhookMessageResponse,
  WebhookSecretResponse,
} from '../dtos/responses/webhooks.response';
import { CreateWebhookEndpointDto, WebhookPageQueryDto } from '../dtos/webhooks.dto';
import {
  presentNewWebhookEndpoint,
  presentQueuedMessage,
  presentWebhookDelivery,
  presentWebhookEndpoint,
} from '../presenters/webhook-endpoints';
import { defineRoute, type Route } from '../route';

const family = 'webhooks';
const ONE_ENDPOINT = { endpoint_id: EXAMPLE_IDS.webhookEndpoint };
const NOT_FOUND = ['webhook_endpoint_not_found'];
const OVERLAP_HOURS = SECRET_OVERLAP_MS / 3_600_000;

/**
 * The endpoints an account's changes are pushed to. DELETE comes last: a client walking the table
 * (the isolation test does) acts on an endpoint before it removes it.
 */
export function webhookEndpointRoutes(container: Container): Route[] {
  return [
    createWebhookEndpointRoute,
    listWebhookEndpointsRoute,
    getWebhookEndpointRoute,
    rollWebhookSecretRoute,
    disableWebhookEndpointRoute,
    enableWebhookEndpointRoute,
    listWebhookDeliveriesRoute,
    sendTestWebhookRoute,
    resendWebhookMessageRoute,
    deleteWebhookEndpointRoute,
  ].map((route) => route(container));
}

/** POST /v1/webhook-endpoints: Register an endpoint to push changes to. */
function createWebhookEndpointRoute(container: Container): Route {
  const createEndpoint = container.get(CreateWebhookEndpoint);
  return defineRoute(
    {
      method: 'post',
      path: '/v1/webhook-endpoints',
      operationId: 'createWebhookEndpoint',
      scope: 'webhooks:write',
      family,
      summary: 'Register an endpoint to push changes to.',
      body: CreateWebhookEndpointDto,
      docs: {
        description:
          'Registers an endpoint, enabled, that each change of the types it names is pushed to, signed with ' +
          '`secret` (Standard Webhooks): the answer is the only one that carries it. The URL is `https` and ' +
          'its host is and resolves to public addresses only, else `webhook_url_not_allowed`. An account keeps ' +
          `at most ${MAX_WEBHOOK_ENDPOINTS} endpoints (\`too_many_webhook_endpoints\`).`,
        status: 201,
        response: NewWebhookEndpointResponse,
        errors: ['webhook_url_not_allowed', 'too_many_webhook_endpoints'],
        example: {
          url: 'https://example.com/webhooks',
          event_types: ['event.recorded', 'event.updated'],
          description: 'Production',
        },
        headers: { Location: 'The new endpoint: /v1/webhook-endpoints/{id}.' },
      },
    },
    async ({ body }, { accountId }) => {
      const endpoint = await createEndpoint.execute({
        accountId,
        url: body.url,
        eventTypes: body.event_types,
        description: body.description ?? null,
      });
      return {
        status: 201,
        body: presentNewWebhookEndpoint(endpoint),
        headers: { Location: `/v1/webhook-endpoints/${endpoint.id}` },
      };
    },
  );
}

/** GET /v1/webhook-endpoints: List the endpoints, oldest first, one page at a time. */
function listWebhookEndpointsRoute(container: Container): Route {
  const listEndpoints = container.get(ListWebhookEndpoints);
  return defineRoute(
    {
      method: 'get',
      path: '/v1/webhook-endpoints',
      operationId: 'listWebhookEndpoints',
      scope: 'webhooks:read',
      family,
      summary: 'List the endpoints, oldest first, one page at a time.',
      query: WebhookPageQueryDto,
      docs: {
        description:
          "The account's webhook endpoints, oldest first, a page at a time: pass `next_cursor` back as " +
          '`cursor`. Their secrets are never listed.',
        status: 200,
        response: WebhookEndpointPageResponse,
        errors: [],
        example: { limit: 10 },
      },
    },
    async ({ query }, { accountId }) => {
      const after = creationCursorOf(query.cursor);
      const page = await listEndpoints.execute({ accountId, limit: query.limit, after });
      return {
        status: 200,
        body: { endpoints: page.endpoints.map(presentWebhookEndpoint), next_cursor: nextCreationCursor(page.next) },
      };
    },
  );
}

/** GET /v1/webhook-endpoints/:endpoint_id: Read one endpoint. */
function getWebhookEndpointRoute(container: Container): Route {
  const getEndpoint = container.get(GetWebhookEndpoint);
  return defineRoute(
    {
      method: 'get',
      path: '/v1/webhook-endpoints/:endpoint_id',
      operationId: 'getWebhookEndpoint',
      scope: 'webhooks:read',
      family,
      summary: 'Read one endpoint.',
      docs: {
        description:
          'One endpoint of the account, with its `status` and, while disabled, its `disabled_reason`; never its ' +
          "secret. Another account's endpoint answers `webhook_endpoint_not_found`, like an unknown one.",
        status: 200,
        response: WebhookEndpointResponse,
        errors: NOT_FOUND,
        example: ONE_ENDPOINT,
      },
    },
    async ({ params }, { accountId }) => {
      const endpoint = await getEndpoint.execute({ accountId, endpointId: params.endpoint_id });
      return { status: 200, body: presentWebhookEndpoint(endpoint) };
    },
  );
}

/** POST /v1/webhook-endpoints/:endpoint_id/roll-secret: Replace the signing secret. */
function rollWebhookSecretRoute(container: Container): Route {
  const rollSecret = container.get(RollWebhookSecret);
  return defineRoute(
    {
      method: 'post',
      path: '/v1/webhook-endpoints/:endpoint_id/roll-secret',
      operationId: 'rollWebhookSecret',
      scope: 'webhooks:write',
      family,
      summary: 'Replace the signing secret.',
      docs: {
        description:
          `A new secret, answered only now. For ${OVERLAP_HOURS} hours every delivery carries a signature by each ` +
          'secret, so a receiver that verifies with either misses none while it switches; a roll within that ' +
          'time retires the oldest at once.',
        status: 200,
        response: WebhookSecretResponse,
        errors: NOT_FOUND,
        example: ONE_ENDPOINT,
      },
    },
    async ({ params }, { accountId }) => {
      const { secret } = await rollSecret.execute({ accountId, endpointId: params.endpoint_id });
      return { status: 200, body: { secret } };
    },
  );
}

/** POST /v1/webhook-endpoints/:endpoint_id/disable: Stop pushing changes to an endpoint. */
function disableWebhookEndpointRoute(container: Container): Route {
  const disableEndpoint = container.get(DisableWebhookEndpoint);
  return defineRoute(
    {
      method: 'post',
      path: '/v1/webhook-endpoints/:endpoint_id/disable',
      operationId: 'disableWebhookEndpoint',
      scope: 'webhooks:write',
      family,
      summary: 'Stop pushing changes to an endpoint.',
      docs: {
        description:
          'Disables the endpoint, `disabled_reason` `by_owner`: no message is recorded for it until it is ' +
          'enabled again, and its messages not yet delivered are failed (resend one to have it again). ' +
          'Disabling a disabled endpoint makes its reason `by_owner`.',
        status: 200,
        response: WebhookEndpointResponse,
        errors: NOT_FOUND,
        example: ONE_ENDPOINT,
      },
    },
    async ({ params }, { accountId }) => {
      const endpoint = await disableEndpoint.execute({ accountId, endpointId: params.endpoint_id });
      return { status: 200, body: presentWebhookEndpoint(endpoint) };
    },
  );
}

/** POST /v1/webhook-endpoints/:endpoint_id/enable: Push changes to an endpoint again. */
function enableWebhookEndpointRoute(container: Container): Route {
  const enableEndpoint = container.get(EnableWebhookEndpoint);
  return defineRoute(
    {
      method: 'post',
      path: '/v1/webhook-endpoints/:endpoint_id/enable',
      operationId: 'enableWebhookEndpoint',
      scope: 'webhooks:write',
      family,
      summary: 'Push changes to an endpoint again.',
      docs: {
        description:
          'Enables the endpoint, whatever disabled it: changes from now on are pushed to it, never the ' +
          'messages failed by its disabling; its `disabled_reason` cleared and its count of days failing ' +
          'started anew. Enabling an enabled endpoint changes nothing.',
        status: 200,
        response: WebhookEndpointResponse,
        errors: NOT_FOUND,
        example: ONE_ENDPOINT,
      },
    },
    async ({ params }, { accountId }) => {
      const endpoint = await enableEndpoint.execute({ accountId, endpointId: params.endpoint_id });
      return { status: 200, body: presentWebhookEndpoint(endpoint) };
    },
  );
}

/** GET /v1/webhook-endpoints/:endpoint_id/deliveries: List every attempt, newest first. */
function listWebhookDeliveriesRoute(container: Container): Route {
  const listDeliveries = container.get(ListWebhookDeliveries);
  return defineRoute(
    {
      method: 'get',
      path: '/v1/webhook-endpoints/:endpoint_id/deliveries',
      operationId: 'listWebhookDeliveries',
      scope: 'webhooks:read',
      family,
      summary: "List the endpoint's delivery attempts, newest first.",
      query: WebhookPageQueryDto,
      docs: {
        description:
          "Every attempt to deliver the endpoint's messages, newest first, a page at a time (pass `next_cursor` " +
          "back as `cursor`): each with its message, its number, the answer's `status` and first KiB, or the " +
          '`error` that kept an answer from coming, and when the retry it scheduled is due.',
        status: 200,
        response: WebhookDeliveryPageResponse,
        errors: NOT_FOUND,
        example: { ...ONE_ENDPOINT, limit: 10 },
      },
    },
    async ({ params, query }, { accountId }) => {
      const page = await listDeliveries.execute({
        accountId,
        endpointId: params.endpoint_id,
        limit: query.limit,
        after: deliveryCursorOf(query.cursor),
      });
      return {
        status: 200,
        body: { deliveries: page.attempts.map(presentWebhookDelivery), next_cursor: nextDeliveryCursor(page.next) },
      };
    },
  );
}

/** POST /v1/webhook-endpoints/:endpoint_id/test: Send the endpoint a webhook.test message. */
function sendTestWebhookRoute(container: Container): Route {
  const sendTest = container.get(SendTestWebhook);
  return defineRoute(
    {
      method: 'post',
      path: '/v1/webhook-endpoints/:endpoint_id/test',
      operationId: 'sendTestWebhook',
      scope: 'webhooks:write',
      family,
      summary: 'Send the endpoint a webhook.test message.',
      docs: {
        description:
          'Records a `webhook.test` message for the endpoint, whatever types it subscribes to, and queues its ' +
          'first attempt: it is signed, sent, retried and listed in the deliveries as every message is. Its ' +
          'body is `{"type": "webhook.test", "timestamp", "data": {"endpoint_id"}}`. A disabled endpoint is ' +
          'sent nothing: `webhook_endpoint_disabled`.',
        status: 202,
        response: WebhookMessageResponse,
        errors: [...NOT_FOUND, 'webhook_endpoint_disabled'],
        example: ONE_ENDPOINT,
      },
    },
    async ({ params }, { accountId }) => {
      const message = await sendTest.execute({ accountId, endpointId: params.endpoint_id });
      return { status: 202, body: presentQueuedMessage(message) };
    },
  );
}

/** POST /v1/webhook-endpoints/:endpoint_id/deliveries/:message_id/resend: Send a message again. */
function resendWebhookMessageRoute(container: Container): Route {
  const resend = container.get(ResendWebhookMessage);
  return defineRoute(
    {
      method: 'post',
      path: '/v1/webhook-endpoints/:endpoint_id/deliveries/:message_id/resend',
      operationId: 'resendWebhookMessage',
      scope: 'webhooks:write',
      family,
      summary: 'Send a message again.',
      docs: {
        description:
          'Queues one more attempt of the message, at once: the same `webhook-id` and body, signed with the ' +
          "endpoint's secrets of the moment. Any message may be resent, delivered, failed or pending: it is " +
          '`pending` until that attempt, then `delivered` at a 2xx and `failed` otherwise, with no retry after ' +
          'it (the retry schedule does not start again). A disabled endpoint is sent nothing: ' +
          '`webhook_endpoint_disabled`.',
        status: 202,
        response: WebhookMessageResponse,
        errors: [...NOT_FOUND, 'webhook_message_not_found', 'webhook_endpoint_disabled'],
        example: { ...ONE_ENDPOINT, message_id: EXAMPLE_IDS.webhookMessage },
      },
    },
    async ({ params }, { accountId }) => {
      const message = await resend.execute({
        accountId,
        endpointId: params.endpoint_id,
        messageId: params.message_id,
      });
      return { status: 202, body: presentQueuedMessage(message) };
    },
  );
}

/** DELETE /v1/webhook-endpoints/:endpoint_id: Delete an endpoint. */
function deleteWebhookEndpointRoute(container: Container): Route {
  const deleteEndpoint = container.get(DeleteWebhookEndpoint);
  return defineRoute(
    {
      method: 'delete',
      path: '/v1/webhook-endpoints/:endpoint_id',
      operationId: 'deleteWebhookEndpoint',
      scope: 'webhooks:write',
      family,
      summary: 'Delete an endpoint.',
      docs: {
        description:
          'Deletes the endpoint with its messages and their attempts: nothing more is sent to it, not even a ' +
          'retry due. A DELETE takes no `Idempotency-Key`: sent again, it answers `webhook_endpoint_not_found`, ' +
          'the endpoint being gone either way.',
        status: 204,
        response: null,
        errors: NOT_FOUND,
        example: ONE_ENDPOINT,
      },
    },
    async ({ params }, { accountId }) => {
      await deleteEndpoint.execute({ accountId, endpointId: params.endpoint_id });
      return { status: 204, body: undefined };
    },
  );
}
