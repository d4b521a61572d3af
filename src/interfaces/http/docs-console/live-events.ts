import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { html, jsonForScript, type SafeHtml } from '../dashboard/html';

/**
 * The try-it console's live feed of `GET /v1/monitor-events` as an event stream (docs/dashboard.md).
 * A browser's own EventSource cannot send the `Authorization` header; the `eventsource` package can
 * (its `fetch` option), and reconnects with `Last-Event-ID` as a browser's does. Both it and the
 * parser it imports are served as the ES modules their packages publish (each `dist/` holds several,
 * which import one another by relative paths), found by an import map.
 */
const LIVE_EVENTS_PACKAGES = ['eventsource', 'eventsource-parser'] as const;

/** `<package>/<module>.js` (the path under /docs/assets/) to the module's file. */
export const LIVE_EVENTS_MODULES: ReadonlyMap<string, string> = new Map(
  LIVE_EVENTS_PACKAGES.flatMap((name) => {
    const dist = path.join(path.dirname(require.resolve(`${name}/package.json`)), 'dist');
    return readdirSync(dist)
      .filter((file) => file.endsWith('.js'))
      .map((file) => [`${name}/${file}`, path.join(dist, file)] as const);
  }),
);

/** The page's import map: the bare names the modules import, mapped to where they are served. */
const IMPORT_MAP: SafeHtml = jsonForScript({
  imports: Object.fromEntries(LIVE_EVENTS_PACKAGES.map((name) => [name, `/docs/assets/${name}/index.js`])),
});

/** The import map's script element, and the hash of its text by which the page's policy allows it. */
// On one line: the policy's hash is of the map's text alone, with no whitespace around it.
// prettier-ignore
export const IMPORT_MAP_SCRIPT: SafeHtml = html`<script type="importmap">${IMPORT_MAP}</script>`;
export const IMPORT_MAP_HASH = `'sha256-${createHash('sha256').update(IMPORT_MAP.text).digest('base64')}'`;

/** The feed's script, served as /docs/live-events.js (a module: no build step). */
export const LIVE_EVENTS_SCRIPT = `import { EventSource } from 'eventsource';

const config = JSON.parse(document.getElementById('console-config').textContent);
const form = document.getElementById('live-form');
const stop = document.getElementById('live-stop');
const status = document.getElementById('live-status');
const list = document.getElementById('live-list');
let source = null;

function say(text) {
  status.textContent = text;
}

function show(event, updated) {
  let item = list.querySelector('[data-event-id="' + CSS.escape(event.event_id) + '"]');
  if (!item) {
    item = document.createElement('li');
    item.dataset.eventId = event.event_id;
    list.append(item);
  }
  item.dataset.kind = updated ? 'updated' : 'recorded';
  item.textContent = event.time + ' · ' + event.kind + ' · ' + event.description + (updated ? ' (moved)' : '');
}

/** Seconds before opening again after a 503 (the service stopping, or its database away). */
const RETRY_AFTER_UNAVAILABLE_MS = 5000;
let lastEventId = null;
let retry = null;

function close() {
  clearTimeout(retry);
  if (source) source.close();
  source = null;
  stop.disabled = true;
}

function watch(query) {
  close();
  stop.disabled = false;
  // A stream opened again after a refusal goes on from the last message received.
  const resumeFrom = lastEventId;
  source = new EventSource('/v1/monitor-events?' + query, {
    fetch: (input, init) => {
      const headers = { ...init.headers, Authorization: 'Bearer ' + config.apiKey };
      if (resumeFrom && !headers['Last-Event-ID']) headers['Last-Event-ID'] = resumeFrom;
      return fetch(input, { ...init, headers });
    },
  });
  const received = (updated) => (message) => {
    lastEventId = message.lastEventId;
    show(JSON.parse(message.data), updated);
  };
  source.addEventListener('open', () => say('Reading the events recorded so far…'));
  source.addEventListener('recorded', received(false));
  source.addEventListener('updated', received(true));
  source.addEventListener('caught-up', (message) => {
    lastEventId = message.lastEventId;
    say('Live: new events appear here as they are recorded.');
  });
  source.addEventListener('error', (failure) => {
    if (failure.code === 503) {
      say('The service cannot stream just now; trying again in a few seconds, with nothing missed…');
      close();
      stop.disabled = false;
      retry = setTimeout(() => watch(query), RETRY_AFTER_UNAVAILABLE_MS);
    } else if (failure.code === 429) {
      say('This key holds its most streams (or sent too many requests): close one, in another tab perhaps.');
      close();
    } else if (failure.code) {
      say('The service refused the stream (HTTP ' + failure.code + '): check the location and time range.');
      close();
    } else say('Connection lost; reconnecting, with nothing missed…');
  });
}

form.addEventListener('submit', (submitted) => {
  submitted.preventDefault();
  const query = new URLSearchParams();
  for (const [name, value] of new FormData(form)) if (String(value).trim()) query.set(name, String(value).trim());
  list.replaceChildren();
  lastEventId = null;
  say('Connecting…');
  watch(query);
});

stop.addEventListener('click', () => {
  close();
  say('Stopped.');
});
`;
