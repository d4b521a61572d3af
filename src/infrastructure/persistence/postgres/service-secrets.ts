import { randomBytes } from 'node:crypto';
import type { PrismaClient } from '../../database/driver/generated/client';

/**
 * A secret the service makes for itself on first start and every process then reads, so that
 * (for example) a form signed by one process is accepted by another behind the same proxy.
 */
export async function loadServiceSecret(prisma: PrismaClient, name: string): Promise<string> {
  // Two processes starting at once both try; the first insert wins and both read the winner.
  await prisma.serviceSecret.createMany({
    data: [{ name, value: randomBytes(32).toString('base64url'), createdAt: new Date() }],
    skipDuplicates: true,
  });
  const stored = await prisma.serviceSecret.findUniqueOrThrow({ where: { name } });
  return stored.value;
}
