// Programs from Debian that some test suites drive (a browser, a proxy, a pooler, Prometheus). Where
// one is missing, its suites are left out of the run and the run ends with one line naming what to
// install (server-only-reporter.js), as for the suites that need a PostgreSQL server: a contributor
// without them still runs the rest. CI installs them all (.ci/run, as root) and sets
// TNS_REQUIRE_TOOLS, so that there a missing program fails its tests instead. JavaScript: read by
// jest.config.js and the reporter, which Jest loads without its transform.
const { accessSync, constants } = require('node:fs');
const { delimiter, join } = require('node:path');

function executable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** A program by path, or by name on PATH. */
function found(program) {
  if (program.includes('/')) return executable(program);
  return (process.env.PATH || '').split(delimiter).some((dir) => dir !== '' && executable(join(dir, program)));
}

// `variables`: where a suite finds the program; a test file that reads one, or imports (through any
// of tests/support) a module that does, drives the program and must be among `suites`
// (tests/unit/toolchain/required-tools.test.ts).
const TOOLS = [
  {
    packages: ['chromium'],
    instead: 'set CHROMIUM_PATH',
    variables: ['CHROMIUM_PATH'],
    present: () => found(process.env.CHROMIUM_PATH || '/usr/bin/chromium'),
    suites: ['tests/e2e/'],
  },
  {
    packages: ['nginx', 'openssl'],
    instead: 'set NGINX_PATH',
    variables: ['NGINX_PATH'],
    present: () => found(process.env.NGINX_PATH || '/usr/sbin/nginx') && found('openssl'),
    suites: [
      'tests/http/reverse-proxy.test.ts',
      'tests/http/event-stream-proxy.test.ts',
      'tests/http/otlp-traces.server.test.ts',
    ],
  },
  {
    packages: ['pgbouncer', 'gettext-base'],
    instead: 'set PGBOUNCER',
    variables: ['PGBOUNCER'],
    present: () => found(process.env.PGBOUNCER || '/usr/sbin/pgbouncer') && found('envsubst'),
    suites: ['tests/http/connection-pooler.server.test.ts', 'tests/http/failover.server.test.ts'],
    // Its suites run only against a server; without one, they are left out for that reason.
    serverOnly: true,
  },
  {
    // Its own primary and standby (tests/support/postgres-standby.ts), from the server's programs.
    packages: ['postgresql-15'],
    instead: 'set POSTGRES_BINDIR',
    variables: ['POSTGRES_BINDIR'],
    present: () =>
      ['initdb', 'pg_basebackup', 'postgres'].every((program) =>
        found(join(process.env.POSTGRES_BINDIR || '/usr/lib/postgresql/15/bin', program)),
      ),
    suites: ['tests/http/standby.server.test.ts'],
    serverOnly: true,
  },
  {
    packages: ['prometheus'],
    instead: 'set PROMETHEUS and PROMTOOL',
    variables: ['PROMETHEUS', 'PROMTOOL'],
    present: () => found(process.env.PROMETHEUS || 'prometheus') && found(process.env.PROMTOOL || 'promtool'),
    suites: ['tests/integration/prometheus/alert-rules.test.ts', 'tests/http/prometheus-scrape.server.test.ts'],
  },
];

/** The tools this run does without: none where TNS_REQUIRE_TOOLS is set (CI). */
function missingTools() {
  if (process.env.TNS_REQUIRE_TOOLS) return [];
  const onServer = Boolean(process.env.DATABASE_URL && process.env.DATABASE_URL.trim());
  return TOOLS.filter((tool) => (onServer || !tool.serverOnly) && !tool.present());
}

/** Jest's testPathIgnorePatterns for the suites of the missing tools. */
function suitesWithoutTheirTools() {
  return missingTools().flatMap((tool) => tool.suites.map((suite) => suite.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
}

/** One line per missing tool, saying which suites were not run and what to install. */
function missingToolLines() {
  return missingTools().map(
    (tool) =>
      `Not run without Debian's ${tool.packages.join(' and ')}: ${tool.suites.join(', ')}. ` +
      `Install it (apt-get install ${tool.packages.join(' ')}), or ${tool.instead}.`,
  );
}

module.exports = { TOOLS, suitesWithoutTheirTools, missingToolLines };
