import type { Prisma, PrismaClient } from './generated/client';

/** What a repository queries through: the client itself, or the client of an open transaction. */
export type Db = PrismaClient | Prisma.TransactionClient;
