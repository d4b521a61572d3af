/**
 * The console's whole start-up script, served as /docs/console-init.js (no build step). It reads
 * the session's key from the page's JSON block and adds it to the console's own requests only:
 * a request to another origin never carries it, and a key the visitor authorizes by hand wins.
 * Its copy of the document has no example Idempotency-Key, so a key is sent only when typed.
 */
export const CONSOLE_INIT_SCRIPT = `'use strict';
(function () {
  var config = JSON.parse(document.getElementById('console-config').textContent);
  var key = config.apiKey;

  // Swagger UI fills a parameter's example into its field and sends it: one fixed key on every
  // POST would answer each later, different request with 422 idempotency_key_reused.
  function withoutIdempotencyKeyExamples(node) {
    if (Array.isArray(node)) return node.map(withoutIdempotencyKeyExamples);
    if (!node || typeof node !== 'object') return node;
    var copy = {};
    Object.keys(node).forEach(function (name) { copy[name] = withoutIdempotencyKeyExamples(node[name]); });
    if (String(copy.in).toLowerCase() === 'header' && String(copy.name).toLowerCase() === 'idempotency-key') {
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
              return function (spec) { return original(withoutIdempotencyKeyExamples(spec)); };
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
`;
