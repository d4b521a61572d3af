// The one classification of the database's failures (database-failures.ts), on errors shaped as
// node-postgres and Prisma's driver adapter give them; pool-sql-runner.test.ts and
// statement-timeout.server.test.ts check the same on errors a database really gave.
import { databaseFailureOf, isRefusedByDatabase } from '../../../src/infrastructure/database/driver/database-failures';
import { Prisma } from '../../../src/infrastructure/database/driver/generated/client';

/** node-postgres' error for a statement PostgreSQL (or a pooler) refused with `code`. */
function fromServer(code: string, message = `refused with ${code}`): Error {
  return Object.assign(new Error(message), { severity: 'ERROR', code });
}

/** Prisma's error for the same, raised through the driver adapter (a raw statement: P2010). */
function fromPrisma(code: string, message = `refused with ${code}`): Prisma.PrismaClientKnownRequestError {
  return new Prisma.PrismaClientKnownRequestError(`Database error. Code: \`${code}\``, {
    code: 'P2010',
    clientVersion: Prisma.prismaVersion.client,
    meta: { driverAdapterError: { cause: { originalCode: code, originalMessage: message, kind: 'postgres' } } },
  });
}

it.each([
  ['57014', 'statement_timeout'],
  ['55P03', 'lock_timeout'],
  ['08006', 'unavailable'],
  ['53300', 'unavailable'],
  ['53100', 'unavailable'],
  ['57P01', 'unavailable'],
  ['23505', null],
  ['22012', null],
])('reads SQLSTATE %s as %s, from node-postgres and from Prisma alike', (code, failure) => {
  expect([databaseFailureOf(fromServer(code)), databaseFailureOf(fromPrisma(code))]).toEqual([failure, failure]);
});

// Class 08: the connection's own failures are outages; 08P01 only when a pooler says it cannot serve now.
it.each([
  ['08000', 'connection exception', 'unavailable'],
  ['08001', 'could not establish connection', 'unavailable'],
  ['08003', 'connection does not exist', 'unavailable'],
  ['08004', 'server rejected the connection', 'unavailable'],
  ['08007', 'transaction resolution unknown', 'unavailable'],
  ['08P01', 'server login has been failing, try again later (server_login_retry)', 'unavailable'],
  ['08P01', 'pgbouncer cannot connect to server', 'unavailable'],
  ['08P01', 'query_wait_timeout', 'unavailable'],
  ['08P01', 'no more connections allowed (max_client_conn)', 'unavailable'],
  ['08P01', 'server conn crashed?', 'unavailable'],
  // The server failed the SET PgBouncer sends to give a connection the client's settings: a dying primary mid-failover.
  ['08P01', 'invalid server parameter', 'unavailable'],
  // PostgreSQL's own: a defect of the client's.
  ['08P01', 'bind message supplies 1 parameters, but prepared statement "" requires 2', null],
  // PgBouncer's configuration: the start says so (pooler-check.ts).
  ['08P01', 'no such database: tns', null],
  ['08P01', 'no such user: tns', null],
  ['08P01', 'SASL authentication failed', null],
])('reads %s "%s" as %s, from node-postgres and from Prisma alike', (code, message, failure) => {
  expect([databaseFailureOf(fromServer(code, message)), databaseFailureOf(fromPrisma(code, message))]).toEqual([
    failure,
    failure,
  ]);
});

it("reads the socket's and the pool's failures as the database unavailable", () => {
  expect(databaseFailureOf(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))).toBe('unavailable');
  expect(databaseFailureOf(new Error('timeout exceeded when trying to connect'))).toBe('unavailable');
  expect(databaseFailureOf(new Error('a fault of the code'))).toBeNull();
});

it('takes a statement stopped at its bound for refused (nothing of it written), unlike a lost connection', () => {
  expect(isRefusedByDatabase(fromServer('57014'))).toBe(true);
  expect(isRefusedByDatabase(fromPrisma('57014'))).toBe(true);
  expect(isRefusedByDatabase(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))).toBe(false);
});
