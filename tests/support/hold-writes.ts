import type { PrismaClient } from '../../src/infrastructure/database/driver/generated/client';

type Transaction = Parameters<Parameters<PrismaClient['$transaction']>[0]>[0];

/**
 * Holds the account's traveller locked, as another writer would, so that the account's writes wait
 * (and stay in flight) until the returned function lets go. Needs a PostgreSQL server: the embedded
 * database's one connection would hold every request, not the account's alone.
 */
export function holdWrites(prisma: PrismaClient, accountId: string): Promise<() => Promise<void>> {
  return holdLock(prisma, (tx) => tx.$queryRaw`SELECT 1 FROM travellers WHERE account_id = ${accountId} FOR UPDATE`);
}

/** Holds a table locked against every reader as well (its test's database alone), until let go. */
export function holdTable(prisma: PrismaClient, table: 'timelines'): Promise<() => Promise<void>> {
  return holdLock(prisma, (tx) => tx.$executeRawUnsafe(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`));
}

/** Takes a lock in a transaction that stays open until the returned function lets go. */
async function holdLock(
  prisma: PrismaClient,
  lock: (tx: Transaction) => Promise<unknown>,
): Promise<() => Promise<void>> {
  let release = () => undefined as void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked = () => undefined as void;
  const isLocked = new Promise<void>((resolve) => (locked = resolve));
  const holding = prisma.$transaction(
    async (tx) => {
      await lock(tx);
      locked();
      await released;
    },
    { timeout: 60_000 },
  );
  await Promise.race([isLocked, holding]);
  return async () => {
    release();
    await holding;
  };
}
