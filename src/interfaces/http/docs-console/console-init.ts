/**
 * The console's whole start-up script, served as /docs/console-init.js (no build step). It reads
 * the session's key from the page's JSON block and adds it to the console's own requests only:
 * a request to another origin never carries it, and a key the visitor authorizes by hand wins.
 * Its copy of the document has no example Idempotency-Key, so a key is sent only when typed, and no
 * event stream, which the live feed (live-events.ts) shows instead.
 */
export const CONSOLE_INIT_SCRIPT = `'use strict';
(function () {
  var config = JSON.parse(document.getElementById('console-config').textContent);
  var key = config.apiKey;

  function isHeader(node, name) {
    return String(node.in).toLowerCase() === 'header' && String(node.name).toLowerCase() === name;
  }
  // Swagger UI fills a parameter's example into its field and sends it: one fixed key on every
  // POST would answer each later, different request with 422 idempotency_key_reused. And it waits
  // for a whole answer, which an event stream never is: the live feed above the console shows
  // those, so the console's copy leaves out the stream's media type and its Last-Event-ID.
  function forTheConsole(node) {
    if (Array.isArray(node)) {
      return node
        .filter(function (item) { return !(item && typeof item === 'object' && isHeader(item, 'last-event-id')); })
        .map(forTheConsole);
    }
    if (!node || typeof node !== 'object') return node;
    var copy = {};
    Object.keys(node).forEach(function (name) {
      if (name !== 'text/event-stream') copy[name] = forTheConsole(node[name]);
    });
    if (isHeader(copy, 'idempotency-key')) {
      delete copy.example;
      delete copy.examples;
      if (copy.schema && typeof copy.schema === 'object') {
        delete copy.schema.example;
        delete copy.schema.examples;
        delete copy.schema.default;
      }
    }
    return copy;
  }
  function consoleDocumentPlugin() {
    return {
      statePlugins: {
        spec: {
          wrapActions: {
            updateJsonSpec: function (original) {
              return function (spec) { return original(forTheConsole(spec)); };
            },
          },
        },
      },
    };
  }

  var ui = SwaggerUIBundle({
    url: config.specUrl,
    dom_id: '#swagger-ui',
    deepLinking: true,
    tryItOutEnabled: true,
    plugins: [consoleDocumentPlugin],
    requestInterceptor: function (request) {
      var target = new URL(request.url, window.location.href);
      if (key && target.origin === window.location.origin && !request.headers.Authorization) {
        request.headers.Authorization = 'Bearer ' + key;
      }
      return request;
    },
    onComplete: function () {
      if (!key) return;
      // Show the console as authorized under every bearer scheme the document declares.
      var spec = ui.specSelectors.specJson().toJS();
      var schemes = (spec.components && spec.components.securitySchemes) || {};
      Object.keys(schemes).forEach(function (name) {
        if (schemes[name].type === 'http' && String(schemes[name].scheme).toLowerCase() === 'bearer') {
          ui.preauthorizeApiKey(name, key);
        }
      });
    },
  });
  window.ui = ui;
})();
`;

export const CONSOLE_CSS = `
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; }
.console-bar {
  display: flex; flex-wrap: wrap; gap: 1rem; align-items: center; justify-content: space-between;
  padding: .6rem 1.25rem; border-bottom: 1px solid #d5dbe0; background: #f6f8fa;
}
.console-bar a { color: #0b5cad; }
.console-bar form { display: inline; }
.console-bar button {
  font: inherit; background: none; border: none; color: #0b5cad; text-decoration: underline; cursor: pointer;
  padding: 0;
}
.console-key { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
.console-warning { margin: .75rem 1.25rem; padding: .6rem .9rem; border-left: 4px solid #9a3412; background: #fff7ed; }
.live-events { margin: 1rem 1.25rem; padding: .75rem 1rem; border: 1px solid #d5dbe0; border-radius: 4px; }
.live-events h2 { margin: 0 0 .25rem; font-size: 1.1rem; }
.live-events form { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: end; }
.live-events label { display: flex; flex-direction: column; font-size: .9rem; }
.live-events input { font: inherit; padding: .2rem .4rem; }
.live-events ol {
  font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .9rem; max-height: 16rem; overflow: auto;
}
.live-events li[data-kind="updated"] { color: #9a3412; }
`;
