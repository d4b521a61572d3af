import { createHash } from 'node:crypto';
import path from 'node:path';
import { html, jsonForScript, type SafeHtml } from '../dashboard/html';

/**
 * The try-it console's live feed of `GET /v1/monitor-events` as an event stream (docs/dashboard.md).
 * A browser's own EventSource cannot send the `Authorization` header; the `eventsource` package can
 * (its `fetch` option), and reconnects with `Last-Event-ID` as a browser's does. Both it and the
 * parser it imports are served as ES modules from their packages, found by an import map.
 */
export const LIVE_EVENTS_MODULES: Readonly<Record<string, string>> = {
  'eventsource.js': packageFile('eventsource', 'dist/index.js'),
  'eventsource-parser.js': packageFile('eventsource-parser', 'dist/index.js'),
};

/** The page's import map: the bare names the modules import, mapped to where they are served. */
const IMPORT_MAP: SafeHtml = jsonForScript({
  imports: { eventsource: '/docs/assets/eventsource.js', 'eventsource-parser': '/docs/assets/eventsource-parser.js' },
});

/** The import map's script element, and the hash of its text by which the page's policy allows it. */
export const IMPORT_MAP_SCRIPT: SafeHtml = html`<script type="importmap">
  ${IMPORT_MAP}
</script>`;
const IMPORT_MAP_TEXT = /^<script type="importmap">([^]*)<\/script>$/.exec(IMPORT_MAP_SCRIPT.text)?.[1] ?? '';
export const IMPORT_MAP_HASH = `'sha256-${createHash('sha256').update(IMPORT_MAP_TEXT).digest('base64')}'`;

function packageFile(name: string, file: string): string {
  return path.join(path.dirname(require.resolve(`${name}/package.json`)), file);
}

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

function close() {
  if (source) source.close();
  source = null;
  stop.disabled = true;
}

form.addEventListener('submit', (submitted) => {
  submitted.preventDefault();
  close();
  const query = new URLSearchParams();
  for (const [name, value] of new FormData(form)) if (String(value).trim()) query.set(name, String(value).trim());
  list.replaceChildren();
  say('Connecting…');
  stop.disabled = false;
  source = new EventSource('/v1/monitor-events?' + query, {
    fetch: (input, init) =>
      fetch(input, { ...init, headers: { ...init.headers, Authorization: 'Bearer ' + config.apiKey } }),
  });
  source.addEventListener('open', () => say('Reading the events recorded so far…'));
  source.addEventListener('recorded', (message) => show(JSON.parse(message.data), false));
  source.addEventListener('updated', (message) => show(JSON.parse(message.data), true));
  source.addEventListener('caught-up', () => say('Live: new events appear here as they are recorded.'));
  source.addEventListener('error', (failure) => {
    if (failure.code) {
      say('The service refused the stream (HTTP ' + failure.code + '): check the location and time range.');
      close();
    } else say('Connection lost; reconnecting, with nothing missed…');
  });
});

stop.addEventListener('click', () => {
  close();
  say('Stopped.');
});
`;
