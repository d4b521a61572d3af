import type { Request, Response, Router } from 'express';
import type { Container } from 'inversify';
import {
  InvalidField,
  TooManyWebhookEndpoints,
  WebhookEndpointDisabled,
  WebhookEndpointNotFound,
  WebhookMessageNotFound,
  WebhookUrlNotAllowed,
} from '../../../core/domain/errors';
import { MAX_WEBHOOK_ENDPOINTS } from '../../../core/domain/webhook-endpoint';
import { CreateWebhookEndpoint } from '../../../core/use-cases/webhook-endpoints/create-webhook-endpoint';
import { DeleteWebhookEndpoint } from '../../../core/use-cases/webhook-endpoints/delete-webhook-endpoint';
import {
  DisableWebhookEndpoint,
  EnableWebhookEndpoint,
} from '../../../core/use-cases/webhook-endpoints/endpoint-state';
import { ListWebhookDeliveries } from '../../../core/use-cases/webhook-endpoints/list-webhook-deliveries';
import { ListWebhookEndpoints } from '../../../core/use-cases/webhook-endpoints/list-webhook-endpoints';
import type { EndpointInput } from '../../../core/use-cases/webhook-endpoints/owned-endpoint';
import { ResendWebhookMessage } from '../../../core/use-cases/webhook-endpoints/resend-webhook-message';
import { RollWebhookSecret } from '../../../core/use-cases/webhook-endpoints/roll-webhook-secret';
import { SendTestWebhook } from '../../../core/use-cases/webhook-endpoints/send-test-webhook';
import type { WebhookAttemptCursor } from '../../../core/ports/webhook-deliveries';
import { deliveryCursorOf, nextDeliveryCursor } from '../cursor';
import { idOf } from '../dtos/responses/ids';
import { CreateWebhookEndpointDto } from '../dtos/webhooks.dto';
import { Problem } from '../problem';
import { validateInput } from '../validation/validate-input';
import { formField, formFieldRefused, formList, statusOf, validationMessage } from './forms';
import { sendPage } from './layout';
import type { SignedInPages, SignedInRequest } from './signed-in';
import { DELIVERIES_SHOWN, deliveriesPage, type DeliveriesView } from './webhook-deliveries-page';
import { deliveriesPath, WEBHOOKS_PATH, webhooksPage, type WebhooksView } from './webhook-pages';

type Render = (
  res: Response,
  status: number,
  signedIn: SignedInRequest,
  extra?: Partial<WebhooksView>,
) => Promise<void>;

/**
 * The dashboard's webhook endpoints: list, add, disable, enable, roll the secret and delete,
 * through the same use cases (and the add form through the same DTO) as /v1/webhook-endpoints.
 */
export function addWebhookRoutes(router: Router, container: Container, pages: SignedInPages): void {
  const listEndpoints = container.get(ListWebhookEndpoints);
  const render: Render = async (res, status, signedIn, extra = {}) => {
    // One page holds every endpoint an account may keep.
    const { endpoints } = await listEndpoints.execute({
      accountId: signedIn.signedIn.session.accountId,
      limit: MAX_WEBHOOK_ENDPOINTS,
    });
    sendPage(res, status, webhooksPage({ signedIn: pages.view(signedIn), endpoints, ...extra }));
  };

  router.get(WEBHOOKS_PATH, async (req, res) => {
    const signedIn = await pages.current(req, res);
    if (!signedIn) return res.redirect(303, `/login?next=${WEBHOOKS_PATH}`);
    await render(res, 200, signedIn);
  });
  addCreateRoute(router, container, pages, render);
  addEndpointActions(router, container, pages, render);
  addDeliveryRoutes(router, container, pages, render);
}

/** The add form: the secret is shown on the page that answers it, and never again. */
function addCreateRoute(router: Router, container: Container, pages: SignedInPages, render: Render): void {
  const createEndpoint = container.get(CreateWebhookEndpoint);
  router.post(
    WEBHOOKS_PATH,
    ...pages.formPost(async (req, res, signedIn) => {
      const form = {
        url: formField(req, 'url') ?? '',
        eventTypes: formList(req, 'event_types'),
        description: formField(req, 'description') ?? '',
      };
      const refuse = (status: number, error: string) => render(res, status, signedIn, { form, error });
      // Sent but not taken: refused by name rather than read as empty, which for a description is none.
      const garbled = ['url', 'description'].find((name) => formFieldRefused(req, name));
      if (garbled) return refuse(400, `${garbled} must be one value, without control characters.`);
      try {
        // The API's rules from the API's DTO; an empty description, as a key's empty name, is none.
        const input = validateInput(CreateWebhookEndpointDto, {
          url: form.url,
          event_types: form.eventTypes,
          ...(form.description === '' ? {} : { description: form.description }),
        });
        const endpoint = await createEndpoint.execute({
          accountId: signedIn.signedIn.session.accountId,
          url: input.url,
          eventTypes: input.event_types,
          description: input.description ?? null,
        });
        // Rendered here rather than redirected: the secret exists for its owner only in this answer.
        await render(res, 201, signedIn, { freshSecret: { endpoint, secret: endpoint.secret, rolled: false } });
      } catch (error) {
        if (error instanceof Problem && error.code === 'validation_failed')
          return refuse(400, validationMessage(error));
        if (error instanceof InvalidField) return refuse(statusOf(error), validationMessage(Problem.fromDomain(error)));
        if (error instanceof WebhookUrlNotAllowed || error instanceof TooManyWebhookEndpoints)
          return refuse(statusOf(error), error.message);
        throw error;
      }
    }),
  );
}

/** The forms of one endpoint's row; an unknown endpoint, or another account's, is refused alike. */
function addEndpointActions(router: Router, container: Container, pages: SignedInPages, render: Render): void {
  const rollSecret = container.get(RollWebhookSecret);
  const disableEndpoint = container.get(DisableWebhookEndpoint);
  const enableEndpoint = container.get(EnableWebhookEndpoint);
  const deleteEndpoint = container.get(DeleteWebhookEndpoint);

  const onEndpoint = (action: string, act: (input: EndpointInput) => Promise<Partial<WebhooksView>>) =>
    router.post(
      `${WEBHOOKS_PATH}/:endpointId/${action}`,
      ...pages.formPost(async (req, res, signedIn) => {
        const input = { accountId: signedIn.signedIn.session.accountId, endpointId: endpointIdParam(req) };
        try {
          await render(res, 200, signedIn, await act(input));
        } catch (error) {
          if (!(error instanceof WebhookEndpointNotFound)) throw error;
          await render(res, statusOf(error), signedIn, { error: error.message });
        }
      }),
    );

  onEndpoint('disable', async (input) => {
    const endpoint = await disableEndpoint.execute(input);
    return { message: `${endpoint.url} is disabled: nothing is recorded for it until you enable it.` };
  });
  onEndpoint('enable', async (input) => {
    const endpoint = await enableEndpoint.execute(input);
    return { message: `${endpoint.url} is enabled: changes from now on are sent to it.` };
  });
  onEndpoint('roll-secret', async (input) => {
    const endpoint = await rollSecret.execute(input);
    return { freshSecret: { endpoint, secret: endpoint.secret, rolled: true } };
  });
  onEndpoint('delete', async (input) => {
    const endpoint = await deleteEndpoint.execute(input);
    return { message: `${endpoint.url} is deleted: nothing more is sent to it.` };
  });
}

/**
 * An endpoint's deliveries, its tests and resends, through the same use cases as
 * /v1/webhook-endpoints/{id}/deliveries, /test and /deliveries/{message_id}/resend. A test or a
 * resend is answered by a redirect to the endpoint's deliveries page, naming the message queued,
 * so that reloading that page to see the attempt does not send another.
 */
function addDeliveryRoutes(router: Router, container: Container, pages: SignedInPages, render: Render): void {
  const listDeliveries = container.get(ListWebhookDeliveries);
  const sendTest = container.get(SendTestWebhook);
  const resend = container.get(ResendWebhookMessage);

  /** The endpoint's page; an unknown endpoint, or another account's, is the list's 404 alike. */
  const show = async (
    res: Response,
    status: number,
    signedIn: SignedInRequest,
    input: EndpointInput,
    extra: Partial<DeliveriesView> = {},
    after: WebhookAttemptCursor | null = null,
  ) => {
    try {
      const page = await listDeliveries.execute({ ...input, limit: DELIVERIES_SHOWN, after });
      const { endpoint, attempts } = page;
      const view = {
        signedIn: pages.view(signedIn),
        endpoint,
        attempts,
        older: nextDeliveryCursor(page.next),
        paged: after !== null,
        ...extra,
      };
      sendPage(res, status, deliveriesPage(view));
    } catch (error) {
      if (!(error instanceof WebhookEndpointNotFound)) throw error;
      await render(res, statusOf(error), signedIn, { error: error.message });
    }
  };
  const inputOf = (req: Request, signedIn: SignedInRequest): EndpointInput => ({
    accountId: signedIn.signedIn.session.accountId,
    endpointId: endpointIdParam(req),
  });
  /** Queues what `act` sends, then shows it queued on the endpoint's page, or why it could not be. */
  const queue = async (res: Response, signedIn: SignedInRequest, input: EndpointInput, act: () => Promise<string>) => {
    let messageId: string;
    try {
      messageId = await act();
    } catch (error) {
      if (error instanceof WebhookEndpointNotFound)
        return render(res, statusOf(error), signedIn, { error: error.message });
      if (!(error instanceof WebhookEndpointDisabled || error instanceof WebhookMessageNotFound)) throw error;
      return show(res, statusOf(error), signedIn, input, { error: error.message });
    }
    res.redirect(303, `${deliveriesPath(input.endpointId)}?queued=${messageId}`);
  };

  router.get(`${WEBHOOKS_PATH}/:endpointId/deliveries`, async (req, res) => {
    const signedIn = await pages.current(req, res);
    if (!signedIn) return res.redirect(303, `/login?next=${WEBHOOKS_PATH}`);
    const queued = typeof req.query.queued === 'string' && MESSAGE_ID.test(req.query.queued) ? req.query.queued : null;
    const after = pageAsked(req);
    const input = inputOf(req, signedIn);
    if (after === 'unknown') return show(res, 400, signedIn, input, { error: UNKNOWN_PAGE });
    const message = queued ? `${queued} is queued, to be sent at once: reload to see its attempt.` : undefined;
    await show(res, 200, signedIn, input, { ...(message && { message }) }, after);
  });
  router.post(
    `${WEBHOOKS_PATH}/:endpointId/test`,
    ...pages.formPost(async (req, res, signedIn) => {
      const input = inputOf(req, signedIn);
      await queue(res, signedIn, input, async () => {
        return (await sendTest.execute(input)).id;
      });
    }),
  );
  router.post(
    `${WEBHOOKS_PATH}/:endpointId/deliveries/:messageId/resend`,
    ...pages.formPost(async (req, res, signedIn) => {
      const input = inputOf(req, signedIn);
      const messageId = String(req.params.messageId);
      await queue(res, signedIn, input, async () => {
        const message = await resend.execute({ ...input, messageId: MESSAGE_ID.test(messageId) ? messageId : '' });
        return message.id;
      });
    }),
  );
}

const MESSAGE_ID = idOf('msg');
const UNKNOWN_PAGE = 'That page of deliveries is none this page links to: the newest attempts are shown.';

/**
 * The page of older attempts asked for (`?after=`, the cursor the page before linked to), null for
 * the newest, or 'unknown' for anything else: the API's paging cursor, which the link carries.
 */
function pageAsked(req: Request): WebhookAttemptCursor | null | 'unknown' {
  const after = req.query.after;
  if (after === undefined) return null;
  if (typeof after !== 'string') return 'unknown';
  try {
    return deliveryCursorOf(after);
  } catch (error) {
    if (error instanceof Problem) return 'unknown';
    throw error;
  }
}

/** An endpoint id from the path, or '' (which names no endpoint) when it cannot be one. */
function endpointIdParam(req: Request): string {
  const endpointId = String(req.params.endpointId);
  return /^whk_[0-9a-f]{32}$/.test(endpointId) ? endpointId : '';
}
