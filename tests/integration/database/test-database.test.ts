// provisionTestDatabase: every call gets its own migrated database, gone after close().
import { provisionTestDatabase } from '../../support/test-database';

// Starting PGlite (WebAssembly PostgreSQL) takes about two seconds; a migration run, a fraction.
jest.setTimeout(30_000);

describe('provisionTestDatabase', () => {
  it('gives each caller a separate, migrated database', async () => {
    const [first, second] = await Promise.all([provisionTestDatabase(), provisionTestDatabase()]);
    try {
      expect(first.connectionString).not.toBe(second.connectionString);
      await first.prisma.account.create({
        data: { id: 'acc-1', email: 'ada@example.com', passwordHash: 'x', createdAt: new Date() },
      });
      expect(await first.prisma.account.count()).toBe(1);
      expect(await second.prisma.account.count()).toBe(0);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it('gives a caller none of what an earlier, closed database held', async () => {
    // Without DATABASE_URL the next database is served by the thread that served the closed one
    // (tests/support/pglite-pool.ts): it must start from the snapshot again, not from what was left.
    for (const round of [1, 2, 3]) {
      const database = await provisionTestDatabase();
      try {
        expect({ round, accounts: await database.prisma.account.count() }).toEqual({ round, accounts: 0 });
        await database.prisma.account.create({
          data: { id: `acc-${round}`, email: `ada${round}@example.com`, passwordHash: 'x', createdAt: new Date() },
        });
      } finally {
        await database.close();
      }
    }
  });

  it('runs interactive transactions of one client one after the other', async () => {
    const database = await provisionTestDatabase();
    try {
      await database.prisma.account.create({
        data: { id: 'acc-1', email: 'ada@example.com', passwordHash: '0', createdAt: new Date() },
      });
      // Read-modify-write under a row lock, ten at once: none may see another's uncommitted state.
      // Each waits for the ones before it (a connection, then the row lock): Prisma's 2 s to start
      // and 5 s to run are too short on a machine busy with the rest of the suite; within the
      // test's 30 s, so a failure says which wait it was.
      const waitAtMost = { maxWait: 20_000, timeout: 20_000 };
      await Promise.all(
        Array.from({ length: 10 }, () =>
          database.prisma.$transaction(async (tx) => {
            await tx.$executeRaw`SELECT 1 FROM accounts WHERE id = 'acc-1' FOR UPDATE`;
            const account = await tx.account.findUniqueOrThrow({ where: { id: 'acc-1' } });
            await tx.account.update({
              where: { id: 'acc-1' },
              data: { passwordHash: String(Number(account.passwordHash) + 1) },
            });
          }, waitAtMost),
        ),
      );
      const account = await database.prisma.account.findUniqueOrThrow({ where: { id: 'acc-1' } });
      expect(account.passwordHash).toBe('10');
    } finally {
      await database.close();
    }
  });
});
