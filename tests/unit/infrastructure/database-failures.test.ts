// The one classification of the database's failures (database-failures.ts), on errors shaped as
// node-postgres and Prisma's driver adapter give them; pool-sql-runner.test.ts and
// statement-timeout.server.test.ts check the same on errors a database really gave.
import { databaseFailureOf, isRefusedByDatabase } from '../../../src/infrastructure/database/database-failures';
import { Prisma } from '../../../src/infrastructure/persistence/prisma/generated/client';

/** node-postgres' error for a statement PostgreSQL refused with `code`. */
function fromServer(code: string): Error {
  return Object.assign(new Error(`refused with ${code}`), { severity: 'ERROR', code });
}

/** Prisma's error for the same, raised through the driver adapter (a raw statement: P2010). */
function fromPrisma(code: string): Prisma.PrismaClientKnownRequestError {
  return new Prisma.PrismaClientKnownRequestError(`Database error. Code: \`${code}\``, {
    code: 'P2010',
    clientVersion: Prisma.prismaVersion.client,
    meta: { driverAdapterError: { cause: { originalCode: code, kind: 'postgres' } } },
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
