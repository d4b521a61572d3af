// Four kinds of tests, visible by folder and by project name: unit (everything that runs without a
// database: the core with in-memory fakes, and the adapters', HTTP layer's and toolchain's parts
// that need none), integration (the adapters and the database), http (the whole app through
// supertest) and e2e (Chromium through the dashboard and the console). integration, http and e2e
// run on PostgreSQL: the server DATABASE_URL names, or else the embedded PGlite.
const { availableParallelism } = require('node:os');

const tsJest = ['ts-jest', {}];
// Suites that drive a program from Debian this machine lacks (tests/support/required-tools.js).
const withoutTools = require('./tests/support/required-tools.js').suitesWithoutTheirTools();

/** @type {import('jest').Config} */
const base = {
  testEnvironment: 'node',
  testPathIgnorePatterns: ['/node_modules/', ...withoutTools],
  transform: { '^.+\\.ts$': tsJest },
  moduleFileExtensions: ['ts', 'js', 'json'],
  // The generated Prisma client (module node20) imports its TypeScript siblings as `./x.js`.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
};

// Test databases (tests/support/test-database.ts): prepared once per run, removed at the end.
// `*.server.test.ts`: every test of the file needs a PostgreSQL server (several processes on one
// database, or a server's own settings; the embedded PGlite belongs to one process). Without
// DATABASE_URL they are not collected at all, rather than reported as skipped, and the run ends
// with one line counting them and the serverOnly() tests of other files (tests/support/server-only.ts);
// CI runs them (.ci/run sets DATABASE_URL).
const onServer = Boolean(process.env.DATABASE_URL && process.env.DATABASE_URL.trim());
const serverOnly = onServer ? [] : ['\\.server\\.test\\.ts$'];

const database = {
  globalSetup: '<rootDir>/tests/support/test-database-global-setup.ts',
  globalTeardown: '<rootDir>/tests/support/test-database-global-teardown.ts',
  testPathIgnorePatterns: ['/node_modules/', ...serverOnly, ...withoutTools],
};

// Without a server, one worker more than the machine has cores. Jest's default is one fewer (one
// worker on two cores), and much of a database test's time is spent waiting for PGlite's thread
// (tests/support/pglite-pool.ts), a spawned service or a browser: on two cores the whole run takes
// about a seventh less with three workers than with two. With a server, as many as cores:
// PostgreSQL's own processes take the rest, and under three workers on two cores CI failed tests
// whose timing holds otherwise.
const workers = availableParallelism() + (onServer ? 0 : 1);

// TEST_PROJECT=<name>: that project alone (npm run test:unit and the like). Jest's own
// --selectProjects would take a file named after it on the command line for a second project name.
const only = process.env.TEST_PROJECT;

/** @type {import('jest').Config} */
module.exports = {
  maxWorkers: workers,
  // Past Jest's 5 s for a hook on two busy cores: without a server, a test file's PGlite
  // (WebAssembly) starting from a snapshot on a new thread (tests/support/pglite-pool.ts); with
  // one, a hook's sign-ups, each a scrypt hash queued in the password threads behind the other
  // workers' (a run on a slow day failed five files so). A hang guard, not a measure of speed.
  // (Jest reads the timeout of the whole run, not a project's.)
  testTimeout: 30_000,
  reporters: ['default', '<rootDir>/tests/support/server-only-reporter.js'],
  projects: [
    { ...base, displayName: 'unit', testMatch: ['<rootDir>/tests/unit/**/*.test.ts'] },
    {
      ...base,
      ...database,
      displayName: 'integration',
      testMatch: ['<rootDir>/tests/integration/**/*.test.ts'],
    },
    {
      ...base,
      ...database,
      displayName: 'http',
      testMatch: ['<rootDir>/tests/http/**/*.test.ts'],
    },
    // A real browser (Debian's Chromium) through the dashboard and the try-it console.
    { ...base, ...database, displayName: 'e2e', testMatch: ['<rootDir>/tests/e2e/**/*.test.ts'] },
  ].filter((project) => !only || project.displayName === only),
};
