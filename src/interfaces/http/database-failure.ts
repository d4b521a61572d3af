/**
 * How the database failed a request, as the composition root's classifier says
 * (infrastructure/database/driver/database-failures.ts; the compiler holds its answer to these where
 * server.ts passes it): out of reach for every request (`unavailable`, an outage), or the request's
 * own statement past a bound of the database (docs/decisions.md, "A statement past its bound").
 */
export type DatabaseTimeout = 'statement_timeout' | 'lock_timeout';
export type DatabaseFailure = 'unavailable' | DatabaseTimeout;

/** Recognises a failure of the database in an error, or null: any other error, the request's or the code's. */
export type DatabaseFailureOf = (error: unknown) => DatabaseFailure | null;
