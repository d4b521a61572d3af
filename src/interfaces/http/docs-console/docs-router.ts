import { Router, type Request, type Response } from 'express';
import type { Container } from 'inversify';
import path from 'node:path';
import { SessionRequired } from '../../../core/domain/errors';
import { OpenConsole } from '../../../core/use-cases/sessions/open-console';
import type { CsrfGuard } from '../dashboard/csrf';
import { html, jsonForScript } from '../dashboard/html';
import { clearSessionCookie, readCookie, SESSION_COOKIE } from '../dashboard/session-cookie';
import { CONSOLE_CSS, CONSOLE_INIT_SCRIPT } from './console-init';
import { IMPORT_MAP_HASH, IMPORT_MAP_SCRIPT, LIVE_EVENTS_MODULES, LIVE_EVENTS_SCRIPT } from './live-events';

export const OPENAPI_PATH = '/openapi.json';

/**
 * Swagger UI needs inline styles and data: images; its scripts and requests stay on this origin. The
 * one inline script allowed is the live feed's import map, by its hash.
 */
const CONSOLE_POLICY =
  `default-src 'none'; script-src 'self' ${IMPORT_MAP_HASH}; style-src 'self' 'unsafe-inline'; ` +
  "img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const JAVASCRIPT = 'text/javascript; charset=utf-8';

/**
 * The files the console page loads from packages, served as they are: swagger-ui-dist's, and the
 * live feed's modules.
 */
function packageAssets(): ReadonlyMap<string, { readonly file: string; readonly type: string }> {
  const swaggerUi = path.dirname(require.resolve('swagger-ui-dist/package.json'));
  return new Map([
    ['swagger-ui.css', { file: path.join(swaggerUi, 'swagger-ui.css'), type: 'text/css; charset=utf-8' }],
    ['swagger-ui-bundle.js', { file: path.join(swaggerUi, 'swagger-ui-bundle.js'), type: JAVASCRIPT }],
    ...[...LIVE_EVENTS_MODULES].map(([name, file]) => [name, { file, type: JAVASCRIPT }] as const),
  ]);
}

/** A script of the console's own, always checked afresh. */
function sendScript(res: Response, body: string): void {
  res.set({ 'Content-Type': JAVASCRIPT, 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff' }).send(body);
}

/**
 * `/docs`: the interactive try-it console (Swagger UI) for `/openapi.json`. A visitor who is not
 * signed in is sent to sign in (with sign-up offered) and comes back here; a signed-in visitor's
 * console sends the session's console key with every request (docs/dashboard.md).
 */
export function docsConsoleRouter(container: Container, csrf: CsrfGuard): Router {
  const openConsole = container.get(OpenConsole);
  const assets = packageAssets();
  const router = Router();

  // One folder deep at most: the live feed's modules are served under their package's name.
  router.get(['/docs/assets/:file', '/docs/assets/:folder/:file'], (req, res, next) => {
    const { folder, file } = req.params;
    const asset = assets.get(folder ? `${folder}/${file}` : String(file));
    if (!asset) return next();
    res.set({
      'Content-Type': asset.type,
      'Cache-Control': 'public, max-age=86400',
      'X-Content-Type-Options': 'nosniff',
    });
    res.sendFile(asset.file);
  });

  router.get('/docs/live-events.js', (_req, res) => sendScript(res, LIVE_EVENTS_SCRIPT));
  router.get('/docs/console-init.js', (_req, res) => sendScript(res, CONSOLE_INIT_SCRIPT));

  router.get('/docs/console.css', (_req, res) => {
    res.set({ 'Content-Type': 'text/css; charset=utf-8', 'Cache-Control': 'no-cache' }).send(CONSOLE_CSS);
  });

  router.get(['/docs', '/docs/'], async (req, res) => {
    const sessionToken = readCookie(req, SESSION_COOKIE);
    if (!sessionToken) return promptForLogin(res);
    try {
      const access = await openConsole.execute({ sessionToken });
      sendConsole(req, res, {
        email: access.signedIn.email,
        apiKey: access.apiKey,
        csrfToken: csrf.sessionToken(sessionToken),
      });
    } catch (error) {
      if (!(error instanceof SessionRequired)) throw error;
      clearSessionCookie(req, res);
      promptForLogin(res);
    }
  });

  return router;
}

function promptForLogin(res: Response): void {
  res.set('Cache-Control', 'no-store').redirect(303, '/login?next=/docs');
}

interface ConsoleView {
  readonly email: string;
  readonly apiKey: string | null;
  readonly csrfToken: string;
}

function sendConsole(_req: Request, res: Response, view: ConsoleView): void {
  const page = html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>Try-it console · Time Navigation Service</title>
        <!-- No icon: a browser would otherwise ask for /favicon.ico on every page, a 404 each time. -->
        <link rel="icon" href="data:," />
        <link rel="stylesheet" href="/docs/assets/swagger-ui.css" />
        <link rel="stylesheet" href="/docs/console.css" />
      </head>
      <body>
        <div class="console-bar">
          <span
            >Signed in as <strong>${view.email}</strong>${
              view.apiKey
                ? html` · requests carry your console key <span class="console-key">${view.apiKey.slice(0, 12)}…</span>`
                : ''
            }</span
          >
          <span
            ><a href="/dashboard">API keys</a> ·
            <form method="post" action="/logout">
              <input type="hidden" name="csrf" value="${view.csrfToken}" /><button type="submit">Sign out</button>
            </form></span
          >
        </div>
        ${
          view.apiKey
            ? ''
            : html`<p class="console-warning" role="alert">
                This session's console key was revoked on the dashboard. Sign out and in again for a new one, or
                authorize another key with the Authorize button.
              </p>`
        }
        ${view.apiKey ? liveEventsPanel() : ''}
        <div id="swagger-ui"></div>
        <script id="console-config" type="application/json">
          ${jsonForScript({ specUrl: OPENAPI_PATH, apiKey: view.apiKey })}
        </script>
        <script src="/docs/assets/swagger-ui-bundle.js"></script>
        <script src="/docs/console-init.js"></script>
        ${view.apiKey ? [IMPORT_MAP_SCRIPT, html`<script type="module" src="/docs/live-events.js"></script>`] : ''}
      </body>
    </html> `;
  res
    .status(200)
    .set({
      'Content-Type': 'text/html; charset=utf-8',
      // The page holds a usable key: never cached, never shown in another site's frame.
      'Cache-Control': 'no-store',
      'Content-Security-Policy': CONSOLE_POLICY,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'same-origin',
    })
    .send(page.text);
}

/** The live feed of monitor-events (live-events.ts): a place and a range, and the events as they come. */
function liveEventsPanel() {
  return html`<section class="live-events" aria-labelledby="live-title">
    <h2 id="live-title">Live events</h2>
    <p>Watch the events at a place as they are recorded (<code>GET /v1/monitor-events</code> as an event stream).</p>
    <form id="live-form">
      <label>Location <input name="location" required value="Sea of Tranquility" /></label>
      <label
        >Time range <input name="time_range" required size="44" value="1969-07-20T00:00:00Z/1969-07-21T00:00:00Z"
      /></label>
      <label>Timeline id <input name="timeline_id" placeholder="the traveller's" /></label>
      <button type="submit">Watch</button>
      <button type="button" id="live-stop" disabled>Stop</button>
    </form>
    <p id="live-status" role="status">Not watching.</p>
    <ol id="live-list" aria-label="Events"></ol>
  </section>`;
}
