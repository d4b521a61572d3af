import type { Response } from 'express';
import { html, type SafeHtml } from './html';

export const DASHBOARD_CSS_PATH = '/assets/dashboard.css';

/** Pages load nothing from elsewhere and run no inline code; forms post only here; no framing. */
const PAGE_POLICY =
  "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; " +
  "base-uri 'none'";

export interface PageOptions {
  readonly title: string;
  readonly body: SafeHtml;
  /** Shown in the header with a sign-out button when someone is signed in. */
  readonly signedIn?: { readonly email: string; readonly csrfToken: string };
}

/** The one layout of the dashboard pages. */
export function layout(options: PageOptions): string {
  const { title, body, signedIn } = options;
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · Time Navigation Service</title>
        <!-- No icon: a browser would otherwise ask for /favicon.ico on every page, a 404 each time. -->
        <link rel="icon" href="data:," />
        <link rel="stylesheet" href="${DASHBOARD_CSS_PATH}" />
      </head>
      <body>
        <header>
          <a class="brand" href="/dashboard">Time Navigation Service</a>
          <nav>
            <a href="/dashboard">API keys</a>
            <a href="/dashboard/webhooks">Webhooks</a>
            <a href="/docs">Try-it console</a>
            ${
              signedIn
                ? html`<span class="who">${signedIn.email}</span>
                    <form method="post" action="/logout" class="inline">
                      <input type="hidden" name="csrf" value="${signedIn.csrfToken}" /><button
                        type="submit"
                        class="link"
                      >
                        Sign out
                      </button>
                    </form>`
                : html`<a href="/login">Sign in</a> <a href="/signup">Sign up</a>`
            }
          </nav>
        </header>
        <main>${body}</main>
      </body>
    </html> `.text;
}

/** Sends a page: never cached (pages show keys and per-session tokens), never sniffed. */
export function sendPage(res: Response, status: number, page: string): void {
  res
    .status(status)
    .set({
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store',
      'Content-Security-Policy': PAGE_POLICY,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'same-origin',
    })
    .send(page);
}

export const DASHBOARD_CSS = `
:root {
  color-scheme: light dark;
  --fg: #1d232a; --muted: #5b6670; --line: #d5dbe0; --bg: #fff; --accent: #0b5cad; --warn: #9a3412; --ok: #166534;
}
@media (prefers-color-scheme: dark) {
  :root {
    --fg: #e6e9ec; --muted: #a3adb6; --line: #3a434c; --bg: #15191d;
    --accent: #7cb7ff; --warn: #fdba74; --ok: #86efac;
  }
}
* { box-sizing: border-box; }
body {
  margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg);
}
header {
  display: flex; flex-wrap: wrap; gap: 1rem; align-items: center; justify-content: space-between;
  padding: .75rem 1.25rem; border-bottom: 1px solid var(--line);
}
header nav { display: flex; gap: 1rem; align-items: center; flex-wrap: wrap; }
.brand { font-weight: 600; color: var(--fg); text-decoration: none; }
.who { color: var(--muted); }
a { color: var(--accent); }
main { max-width: 60rem; margin: 0 auto; padding: 1.5rem 1.25rem 3rem; }
h1 { font-size: 1.5rem; margin: 0 0 1rem; }
h2 { font-size: 1.15rem; margin: 2rem 0 .75rem; }
form.stack { display: grid; gap: .75rem; max-width: 24rem; }
label { display: grid; gap: .25rem; font-weight: 500; }
input[type=email], input[type=password], input[type=text], input[type=url] {
  font: inherit; padding: .5rem .6rem; border: 1px solid var(--line); border-radius: 6px;
  background: var(--bg); color: var(--fg);
}
button {
  font: inherit; padding: .45rem .9rem; border: 1px solid var(--accent); border-radius: 6px;
  background: var(--accent); color: var(--bg); cursor: pointer;
}
button.secondary { background: transparent; color: var(--accent); }
button.danger { background: transparent; color: var(--warn); border-color: var(--warn); }
button.link { background: none; border: none; padding: 0; color: var(--accent); text-decoration: underline; }
form.inline { display: inline; }
fieldset { border: 1px solid var(--line); border-radius: 6px; padding: .5rem .75rem; display: grid; gap: .25rem; }
legend { font-weight: 500; padding: 0 .25rem; }
label.check { display: flex; gap: .5rem; align-items: center; font-weight: normal; }
code.url { word-break: break-all; }
details.confirm { display: inline-block; margin-left: .25rem; }
details.confirm summary { cursor: pointer; color: var(--warn); }
details.confirm p { white-space: normal; max-width: 16rem; font-size: .9rem; }
.notice {
  padding: .75rem 1rem; border: 1px solid var(--line); border-left: 4px solid var(--accent); border-radius: 6px;
  margin: 0 0 1rem;
}
.notice.error { border-left-color: var(--warn); }
.notice.ok { border-left-color: var(--ok); }
.secret {
  display: block; font: 0.95rem/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; padding: .6rem .75rem;
  margin: .5rem 0; border: 1px dashed var(--line); border-radius: 6px; word-break: break-all; user-select: all;
}
table { width: 100%; border-collapse: collapse; }
th, td { text-align: left; padding: .5rem .4rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; color: var(--muted); font-size: .9rem; }
td.actions { white-space: nowrap; }
td.actions form { display: inline; margin-left: .25rem; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
.muted { color: var(--muted); }
td.delivered strong { color: var(--ok); }
td.failed strong { color: var(--warn); }
pre.answer {
  max-width: 24rem; max-height: 12rem; overflow: auto; white-space: pre-wrap; word-break: break-all; font-size: .85rem;
}
`;
