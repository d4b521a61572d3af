import type { PrismaClient } from '../../src/infrastructure/persistence/prisma/generated/client';

/**
 * Holds the account's traveller locked, as another writer would, so that the account's writes wait
 * (and stay in flight) until the returned function lets go. Needs a PostgreSQL server: the embedded
 * database's one connection would hold every request, not the account's alone.
 */
export async function holdWrites(prisma: PrismaClient, accountId: string): Promise<() => Promise<void>> {
  let release = () => undefined as void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked = () => undefined as void;
  const isLocked = new Promise<void>((resolve) => (locked = resolve));
  const holding = prisma.$transaction(
    async (tx) => {
      await tx.$queryRaw`SELECT 1 FROM travellers WHERE account_id = ${accountId} FOR UPDATE`;
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
