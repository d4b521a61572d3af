import {
  MAX_WEBHOOK_ENDPOINTS,
  MAX_WEBHOOK_URL_LENGTH,
  SECRET_OVERLAP_MS,
  WEBHOOK_EVENT_TYPES,
  type WebhookDisabledReason,
  type WebhookEndpoint,
} from '../../../core/domain/webhook-endpoint';
import { MAX_TEXT_LENGTH } from '../dtos/limits';
import { html, type SafeHtml } from './html';
import { layout } from './layout';
import { notice, time, type SignedInView } from './pages';

export const WEBHOOKS_PATH = '/dashboard/webhooks';

export const deliveriesPath = (endpointId: string) => `${WEBHOOKS_PATH}/${endpointId}/deliveries`;

/** A button posting to `action` with the session's token: every action of the webhook pages is one. */
export function postButton(
  action: string,
  label: string,
  kind: 'secondary' | 'danger',
  csrfToken: string,
  inline = false,
): SafeHtml {
  return html`<form method="post" action="${action}" ${inline ? html`class="inline"` : ''}>
    <input type="hidden" name="csrf" value="${csrfToken}" /><button type="submit" class="${kind}">${label}</button>
  </form>`;
}

export interface WebhooksView {
  readonly signedIn: SignedInView;
  readonly endpoints: readonly WebhookEndpoint[];
  /** A secret just made (a new endpoint, or a roll): the only time it is shown. */
  readonly freshSecret?: { readonly endpoint: WebhookEndpoint; readonly secret: string; readonly rolled: boolean };
  /** What the add form held when it was refused, so it is not typed again. */
  readonly form?: { readonly url: string; readonly eventTypes: readonly string[]; readonly description: string };
  readonly error?: string;
  readonly message?: string;
}

const REASONS: Readonly<Record<WebhookDisabledReason, string>> = {
  by_owner: 'disabled by you',
  gone: 'disabled: it answered 410 Gone',
  failing: 'disabled: every delivery failed for 5 days',
};

const OVERLAP_HOURS = SECRET_OVERLAP_MS / 3_600_000;

export function webhooksPage(view: WebhooksView): string {
  const { signedIn, endpoints, freshSecret } = view;
  return layout({
    title: 'Webhooks',
    signedIn,
    body: html`<h1>Webhook endpoints</h1>
      ${notice(view.error)} ${notice(view.message, 'ok')} ${freshSecret ? secretNotice(freshSecret) : ''}
      <p>
        Each change of the types an endpoint names is sent to it, signed with its secret as the Standard Webhooks
        specification says. An account keeps at most ${MAX_WEBHOOK_ENDPOINTS} endpoints. A secret is shown once, when
        the endpoint is added or its secret rolled.
      </p>
      ${
        endpoints.length === 0
          ? html`<p class="muted">No endpoints yet.</p>`
          : html`<table>
              <thead>
                <tr>
                  <th>URL</th>
                  <th>Event types</th>
                  <th>Status</th>
                  <th>Created</th>
                  <th></th>
                </tr>
              </thead>
              <tbody>
                ${endpoints.map((endpoint) => endpointRow(endpoint, signedIn.csrfToken, freshSecret?.endpoint.id))}
              </tbody>
            </table>`
      }
      ${addForm(signedIn.csrfToken, view.form)}`,
  });
}

function secretNotice(fresh: NonNullable<WebhooksView['freshSecret']>): SafeHtml {
  return html`<section class="notice ok" aria-labelledby="fresh-secret">
    <strong id="fresh-secret"
      >${
        fresh.rolled
          ? `The new signing secret of ${fresh.endpoint.url}:`
          : `The signing secret of ${fresh.endpoint.url}:`
      }</strong
    >
    <code class="secret" data-testid="new-webhook-secret">${fresh.secret}</code>
    Copy it now: it is not shown again.
    ${
      fresh.rolled
        ? `For ${OVERLAP_HOURS} hours deliveries are signed by the previous secret too, so your receiver can switch.`
        : ''
    }
  </section>`;
}

function endpointRow(endpoint: WebhookEndpoint, csrfToken: string, freshId: string | undefined): SafeHtml {
  const action = (name: string, label: string, kind: 'secondary' | 'danger') =>
    postButton(`${WEBHOOKS_PATH}/${endpoint.id}/${name}`, label, kind, csrfToken);
  const enabled = endpoint.status === 'enabled';
  return html`
    <tr data-endpoint-id="${endpoint.id}" ${endpoint.id === freshId ? html` class="fresh"` : ''}>
      <td>
        <code class="url">${endpoint.url}</code>${
          endpoint.description === null ? '' : html`<br /><span class="muted">${endpoint.description}</span>`
        }
      </td>
      <td>${endpoint.eventTypes.map((type, index) => html`${index > 0 ? html`<br />` : ''}<code>${type}</code>`)}</td>
      <td data-testid="endpoint-status">${enabled ? 'enabled' : REASONS[endpoint.disabledReason ?? 'by_owner']}</td>
      <td>${time(endpoint.createdAt)}</td>
      <td class="actions">
        <a href="${deliveriesPath(endpoint.id)}">Deliveries</a>
        ${enabled ? action('test', 'Send a test', 'secondary') : ''}
        ${enabled ? action('disable', 'Disable', 'secondary') : action('enable', 'Enable', 'secondary')}
        ${action('roll-secret', 'Roll secret', 'secondary')}
        <details class="confirm">
          <summary>Delete…</summary>
          <p>Nothing more is sent to this endpoint, not even a retry due; this cannot be undone.</p>
          ${action('delete', 'Delete for good', 'danger')}
        </details>
      </td>
    </tr>
  `;
}

function addForm(csrfToken: string, form: WebhooksView['form']): SafeHtml {
  const checked = (type: string) => (form ? form.eventTypes.includes(type) : true);
  return html`<h2 id="add-endpoint">Add an endpoint</h2>
    <form method="post" action="${WEBHOOKS_PATH}" class="stack" aria-labelledby="add-endpoint">
      <input type="hidden" name="csrf" value="${csrfToken}" />
      <label
        >URL
        <input
          type="url"
          name="url"
          required
          maxlength="${MAX_WEBHOOK_URL_LENGTH}"
          placeholder="https://example.com/webhooks"
          value="${form?.url ?? ''}"
      /></label>
      <fieldset>
        <legend>Event types</legend>
        ${WEBHOOK_EVENT_TYPES.map(
          (type) =>
            html`<label class="check"
              ><input type="checkbox" name="event_types" value="${type}" ${checked(type) ? html`checked` : ''} />
              <code>${type}</code></label
            >`,
        )}
      </fieldset>
      <label
        >Description <span class="muted">(optional)</span>
        <input
          type="text"
          name="description"
          maxlength="${MAX_TEXT_LENGTH}"
          placeholder="production receiver"
          value="${form?.description ?? ''}"
      /></label>
      <div><button type="submit">Add endpoint</button></div>
    </form>`;
}
