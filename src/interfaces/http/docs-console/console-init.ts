/**
 * The console's whole start-up script, served as /docs/console-init.js (no build step). It reads
 * the session's key from the page's JSON block and adds it to the console's own requests only:
 * a request to another origin never carries it, and a key the visitor authorizes by hand wins.
 */
export const CONSOLE_INIT_SCRIPT = `'use strict';
(function () {
  var config = JSON.parse(document.getElementById('console-config').textContent);
  var key = config.apiKey;
  var ui = SwaggerUIBundle({
    url: config.specUrl,
    dom_id: '#swagger-ui',
    deepLinking: true,
    tryItOutEnabled: true,
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
.console-bar { display: flex; flex-wrap: wrap; gap: 1rem; align-items: center; justify-content: space-between; padding: .6rem 1.25rem; border-bottom: 1px solid #d5dbe0; background: #f6f8fa; }
.console-bar a { color: #0b5cad; }
.console-bar form { display: inline; }
.console-bar button { font: inherit; background: none; border: none; color: #0b5cad; text-decoration: underline; cursor: pointer; padding: 0; }
.console-key { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
.console-warning { margin: .75rem 1.25rem; padding: .6rem .9rem; border-left: 4px solid #9a3412; background: #fff7ed; }
`;
