import type { WebhookEndpoint } from '../../../core/domain/webhook-endpoint';
import type { RecordedAttempt } from '../../../core/ports/webhook-deliveries';
import { html, type SafeHtml } from './html';
import { layout } from './layout';
import { notice, time, type SignedInView } from './pages';
import { deliveriesPath, postButton, WEBHOOKS_PATH } from './webhook-pages';

/** The attempts an endpoint's page shows, newest first: what its owner looks at after a change or a test. */
export const DELIVERIES_SHOWN = 20;

export interface DeliveriesView {
  readonly signedIn: SignedInView;
  readonly endpoint: WebhookEndpoint;
  /** DELIVERIES_SHOWN attempts: the newest, or those before the page that linked here. */
  readonly attempts: readonly RecordedAttempt[];
  /** The cursor of the page of older attempts, or null when these are the oldest. */
  readonly older?: string | null;
  /** True on a page of older attempts, which links back to the newest. */
  readonly paged?: boolean;
  readonly error?: string;
  readonly message?: string;
}

/** One endpoint's last deliveries with their answers, a resend per message and a test to send. */
export function deliveriesPage(view: DeliveriesView): string {
  const { signedIn, endpoint, attempts } = view;
  const enabled = endpoint.status === 'enabled';
  const testPath = `${WEBHOOKS_PATH}/${endpoint.id}/test`;
  // The resend button sits on each message's newest attempt shown.
  const newest = new Set<RecordedAttempt>();
  const seen = new Set<string>();
  for (const attempt of attempts) {
    if (!seen.has(attempt.messageId)) newest.add(attempt);
    seen.add(attempt.messageId);
  }
  return layout({
    title: 'Webhook deliveries',
    signedIn,
    body: html`<p><a href="${WEBHOOKS_PATH}">← Webhook endpoints</a></p>
      <h1>Deliveries to <code class="url">${endpoint.url}</code></h1>
      ${notice(view.error)} ${notice(view.message, 'ok')}
      ${
        enabled
          ? html`${postButton(testPath, 'Send a test', 'secondary', signedIn.csrfToken, true)}
              <span class="muted">a <code>webhook.test</code> message, delivered as every message is.</span>`
          : html`<p class="muted">This endpoint is disabled: enable it to send it a test or resend a message.</p>`
      }
      <p class="muted">
        ${view.paged ? 'Older attempts' : html`The last ${DELIVERIES_SHOWN} attempts`}, newest first,
        ${DELIVERIES_SHOWN} a page; <code>GET /v1/webhook-endpoints/${endpoint.id}/deliveries</code> lists them too. A
        resend sends the same message again, once, with the same <code>webhook-id</code>.
      </p>
      ${
        attempts.length === 0
          ? html`<p class="muted" data-testid="no-deliveries">No deliveries yet.</p>`
          : html`<table>
              <thead>
                <tr>
                  <th>When</th>
                  <th>Message</th>
                  <th>Attempt</th>
                  <th>Answer</th>
                  <th>Next attempt</th>
                  <th></th>
                </tr>
              </thead>
              <tbody>
                ${attempts.map((attempt) =>
                  attemptRow(endpoint, attempt, enabled && newest.has(attempt), signedIn.csrfToken),
                )}
              </tbody>
            </table>`
      }
      ${pageLinks(endpoint, view)}`,
  });
}

/** To the newest attempts from an older page, and on to the older ones while there are more. */
function pageLinks(endpoint: WebhookEndpoint, view: DeliveriesView): SafeHtml | '' {
  if (!view.paged && !view.older) return '';
  const path = deliveriesPath(endpoint.id);
  return html`<p class="paging">
    ${view.paged ? html`<a href="${path}" data-testid="newest-deliveries">← Newest attempts</a>` : ''}
    ${
      view.older
        ? html`<a href="${path}?after=${encodeURIComponent(view.older)}" data-testid="older-deliveries"
            >Older attempts →</a
          >`
        : ''
    }
  </p>`;
}

function attemptRow(endpoint: WebhookEndpoint, attempt: RecordedAttempt, resend: boolean, csrf: string): SafeHtml {
  const delivered = attempt.status !== null && attempt.status >= 200 && attempt.status <= 299;
  const outcome =
    attempt.status === null
      ? html`<strong>${attempt.error ?? 'no answer'}</strong>`
      : html`<strong>${attempt.status}</strong>${attempt.error === null ? '' : html` <span>(${attempt.error})</span>`}`;
  return html`
    <tr data-message-id="${attempt.messageId}" data-attempt="${attempt.attempt}">
      <td>${time(attempt.attemptedAt)}</td>
      <td><code>${attempt.messageId}</code><br /><code class="muted">${attempt.eventType}</code></td>
      <td>${attempt.attempt}</td>
      <td data-testid="attempt-answer" class="${delivered ? 'delivered' : 'failed'}">
        ${outcome} <span class="muted">in ${attempt.durationMs} ms</span>
        ${
          attempt.answer === ''
            ? ''
            : html`<details>
                <summary>answer</summary>
                <pre class="answer">${attempt.answer}</pre>
              </details>`
        }
      </td>
      <td>${attempt.nextAttemptAt === null ? html`<span class="muted">none</span>` : time(attempt.nextAttemptAt)}</td>
      <td class="actions">
        ${
          resend
            ? postButton(`${deliveriesPath(endpoint.id)}/${attempt.messageId}/resend`, 'Resend', 'secondary', csrf)
            : ''
        }
      </td>
    </tr>
  `;
}
