import { API_KEY_NAME_MAX_LENGTH, isConsoleKey, type ApiKey } from '../../../core/domain/account';
import { ACCESS_LEVELS, RESOURCES } from '../../../core/domain/api-key-permissions';
import { formatDateTime } from '../../../core/domain/date-time-format';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../../../core/domain/password';
import { html, type SafeHtml } from './html';
import { layout } from './layout';

export interface SignedInView {
  readonly email: string;
  readonly csrfToken: string;
  /** Its password was accepted under an earlier rule that refuses it now. */
  readonly passwordChangeDue?: boolean;
}

const PASSWORD_RULE = `${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters, not a commonly used password`;

/** A field for a new password, saying the rule and letting the browser check its length. */
function newPasswordField(label: string, name: string): SafeHtml {
  return html`<label
    >${label} <span class="muted">(${PASSWORD_RULE})</span>
    <input
      type="password"
      name="${name}"
      autocomplete="new-password"
      required
      minlength="${MIN_PASSWORD_LENGTH}"
      maxlength="${MAX_PASSWORD_LENGTH}"
  /></label>`;
}
const PASSWORD_CHANGE_DUE =
  'Your password was accepted under an earlier rule, which now refuses it as too short or too easy to guess. ' +
  'Please choose another below.';

export function notice(message: string | undefined, kind: 'error' | 'ok' = 'error'): SafeHtml {
  return message
    ? html`<p class="notice ${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${message}</p>`
    : html``;
}

export function time(moment: Date | null): SafeHtml {
  if (moment === null) return html`<span class="muted">never</span>`;
  const text = formatDateTime(moment);
  return html`<time datetime="${text}">${text.replace('T', ' ').replace('Z', ' UTC')}</time>`;
}

export interface CredentialsForm {
  readonly csrfToken: string;
  readonly next: string;
  readonly email?: string;
  readonly error?: string;
}

/** What the sign-in and sign-up forms share: the form's token, where to go next, the email field. */
function credentialsFormHead(form: CredentialsForm): SafeHtml {
  return html`<input type="hidden" name="csrf" value="${form.csrfToken}" />
    <input type="hidden" name="next" value="${form.next}" />
    <label
      >Email
      <input type="email" name="email" value="${form.email ?? ''}" autocomplete="username" required maxlength="254"
    /></label>`;
}

const CONSOLE_SIGN_IN = 'Sign in to use the try-it console: its requests then carry an API key of your account.';

export function loginPage(form: CredentialsForm): string {
  const forConsole = form.next === '/docs';
  return layout({
    title: 'Sign in',
    body: html`<h1>Sign in</h1>
      ${forConsole ? notice(CONSOLE_SIGN_IN, 'ok') : ''} ${notice(form.error)}
      <form method="post" action="/login" class="stack">
        ${credentialsFormHead(form)}
        <label
          >Password <input type="password" name="password" autocomplete="current-password" required maxlength="256"
        /></label>
        <div><button type="submit">Sign in</button></div>
      </form>
      <p>No account yet? <a href="/signup?next=${encodeURIComponent(form.next)}">Sign up</a>.</p>`,
  });
}

export function signUpPage(form: CredentialsForm): string {
  return layout({
    title: 'Sign up',
    body: html`<h1>Open an account</h1>
      ${notice(form.error)}
      <form method="post" action="/signup" class="stack">
        ${credentialsFormHead(form)} ${newPasswordField('Password', 'password')}
        <div><button type="submit">Sign up</button></div>
      </form>
      <p>Already have an account? <a href="/login?next=${encodeURIComponent(form.next)}">Sign in</a>.</p>`,
  });
}

export interface DashboardView {
  readonly signedIn: SignedInView;
  readonly keys: readonly ApiKey[];
  /** A key just created or rolled: the only time its whole value is shown. */
  readonly fresh?: { readonly key: ApiKey; readonly secret: string; readonly replaced?: string };
  readonly error?: string;
  readonly message?: string;
}

export function dashboardPage(view: DashboardView): string {
  const { signedIn, keys, fresh } = view;
  return layout({
    title: 'API keys',
    signedIn,
    body: html`<h1>API keys</h1>
      ${signedIn.passwordChangeDue ? notice(PASSWORD_CHANGE_DUE) : ''} ${notice(view.error)}
      ${notice(view.message, 'ok')} ${fresh ? freshKey(fresh) : ''}
      <p>
        Send a key as <code>Authorization: Bearer &lt;API_KEY&gt;</code>. Only the first characters of a key are kept
        for you to recognise it; the whole key is shown once, when it is created or rolled.
      </p>
      <table>
        <thead>
          <tr>
            <th>Key</th>
            <th>Name</th>
            <th>Permissions</th>
            <th>Created</th>
            <th>Last used</th>
            <th></th>
          </tr>
        </thead>
        <tbody>
          ${keys.map((key) => keyRow(key, signedIn.csrfToken, fresh?.key.id))}
        </tbody>
      </table>
      <h2>Create another key</h2>
      <form method="post" action="/dashboard/keys" class="stack">
        <input type="hidden" name="csrf" value="${signedIn.csrfToken}" />
        <label
          >Name <span class="muted">(optional)</span>
          <input type="text" name="name" maxlength="${API_KEY_NAME_MAX_LENGTH}" placeholder="deploy script"
        /></label>
        ${accessFields()}
        <div><button type="submit">Create key</button></div>
      </form>
      ${passwordForm(signedIn.csrfToken)}`,
  });
}

/** Full or restricted, and a restricted key's level of each resource (docs/api.md, "Permissions"). */
function accessFields(): SafeHtml {
  return html`<fieldset class="stack">
    <legend>Access</legend>
    <label
      ><input type="radio" name="access" value="full" checked /> Full: everything your account may do, managing keys
      included (<code>tns_</code>)</label
    >
    <label
      ><input type="radio" name="access" value="restricted" /> Restricted: only the permissions below
      (<code>tnr_</code>); for an integration that needs no more</label
    >
    <table class="permissions">
      <tbody>
        ${RESOURCES.map(
          (resource) =>
            html`<tr>
              <td><label for="permission-${resource}">${resource}</label></td>
              <td>
                <select id="permission-${resource}" name="permission_${resource}">
                  ${ACCESS_LEVELS.map((level) => html`<option value="${level}">${level}</option>`)}
                </select>
              </td>
            </tr>`,
        )}
      </tbody>
    </table>
  </fieldset>`;
}

/** What a key may do, as its row says it: full, or the resources it holds a level of. */
function permissionsText(key: ApiKey): SafeHtml {
  if (key.permissions === null) return html`full access`;
  const { permissions } = key;
  const held = RESOURCES.filter((resource) => permissions[resource] !== 'none');
  if (held.length === 0) return html`<span class="muted">restricted: no access</span>`;
  return html`<span class="muted">restricted:</span>
    ${held.map((resource) => html`<code>${resource}:${permissions[resource]}</code> `)}`;
}

function passwordForm(csrfToken: string): SafeHtml {
  return html`<h2 id="password">Change your password</h2>
    <form method="post" action="/dashboard/password" class="stack" aria-labelledby="password">
      <input type="hidden" name="csrf" value="${csrfToken}" />
      <label
        >Current password
        <input type="password" name="current_password" autocomplete="current-password" required maxlength="256"
      /></label>
      ${newPasswordField('New password', 'new_password')}
      <div><button type="submit">Change password</button></div>
    </form>`;
}

function freshKey(fresh: NonNullable<DashboardView['fresh']>): SafeHtml {
  return html`<section class="notice ok" aria-labelledby="fresh-key">
    <strong id="fresh-key"
      >${fresh.replaced ? `Key ${fresh.replaced} was revoked; its replacement:` : 'Your new API key:'}</strong
    >
    <code class="secret" data-testid="new-api-key">${fresh.secret}</code>
    Copy it now: it is not shown again. Afterwards this page shows only <code>${fresh.key.prefix}…</code>.
  </section>`;
}

const CONSOLE_KEY_NOTE = html`<br /><span class="muted">used by the try-it console; ends with your session</span>`;

function keyRow(key: ApiKey, csrfToken: string, freshId: string | undefined): SafeHtml {
  const console = isConsoleKey(key);
  const actions = html`${
      console
        ? ''
        : html`<form method="post" action="/dashboard/keys/${key.id}/roll">
            <input type="hidden" name="csrf" value="${csrfToken}" /><button type="submit" class="secondary">
              Roll
            </button>
          </form>`
    }
    <form method="post" action="/dashboard/keys/${key.id}/revoke">
      <input type="hidden" name="csrf" value="${csrfToken}" /><button type="submit" class="danger">Revoke</button>
    </form>`;
  return html`
    <tr data-key-id="${key.id}" ${key.id === freshId ? html` class="fresh"` : ''}>
      <td><code>${key.prefix}…</code></td>
      <td>
        ${key.name ?? html`<span class="muted">unnamed</span>`}${console && key.expiresAt ? CONSOLE_KEY_NOTE : ''}
      </td>
      <td data-permissions>${permissionsText(key)}</td>
      <td>${time(key.createdAt)}</td>
      <td>${time(key.lastUsedAt)}</td>
      <td class="actions">${actions}</td>
    </tr>
  `;
}

export function messagePage(title: string, message: string, link: { href: string; text: string }): string {
  return layout({
    title,
    body: html`<h1>${title}</h1>
      ${notice(message)}
      <p><a href="${link.href}">${link.text}</a></p>`,
  });
}
