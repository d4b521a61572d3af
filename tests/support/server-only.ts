// Tests that need a PostgreSQL server: several processes on one database, or another session beside
// the test's (the embedded PGlite serves one process from one session). A file of nothing else is
// named *.server.test.ts, which jest.config.js leaves out without DATABASE_URL; in other files they
// are declared inside serverOnly(). Without a server, a run says how many of both it did not run
// (server-only-tests.ts, counted from the source: declare them in the callback itself).

/** The run has a PostgreSQL server (DATABASE_URL), not the embedded PGlite. */
export const onServer = Boolean(process.env.DATABASE_URL?.trim());

/** Declares the tests `define` declares, when the run has a PostgreSQL server. */
export function serverOnly(define: () => void): void {
  if (onServer) define();
}
