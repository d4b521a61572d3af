import { Prisma } from './generated/client';

/** PostgreSQL refused a row because a unique index already holds its key (Prisma code P2002). */
export function isUniqueViolation(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002';
}
