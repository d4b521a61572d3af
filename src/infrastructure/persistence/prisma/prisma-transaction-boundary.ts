import type { Repositories } from '../../../core/ports/repositories';
import type { TransactionBoundary } from '../../../core/ports/transaction-boundary';
import { Prisma, type PrismaClient } from './generated/client';
import { prismaRepositories } from './prisma-repositories';
import { PrismaTravellerRepository } from './repositories/prisma-traveller-repository';

// Generous but bounded: many requests of one account may queue for its row lock.
const TRANSACTION_OPTIONS = { maxWait: 10_000, timeout: 15_000 } as const;

export class PrismaTransactionBoundary implements TransactionBoundary {
  private readonly plain: Repositories;

  constructor(private readonly prisma: PrismaClient) {
    this.plain = prismaRepositories(prisma);
  }

  exclusive<T>(accountId: string, work: (repositories: Repositories) => Promise<T>): Promise<T> {
    return this.prisma.$transaction(async (tx) => {
      const travellers = new PrismaTravellerRepository(tx);
      await travellers.lockForAccount(accountId);
      return work({ ...prismaRepositories(tx), travellers });
    }, TRANSACTION_OPTIONS);
  }

  atomic<T>(work: (repositories: Repositories) => Promise<T>): Promise<T> {
    return this.prisma.$transaction((tx) => work(prismaRepositories(tx)), TRANSACTION_OPTIONS);
  }

  snapshot<T>(work: (repositories: Repositories) => Promise<T>): Promise<T> {
    return this.prisma.$transaction((tx) => work(prismaRepositories(tx)), {
      ...TRANSACTION_OPTIONS,
      isolationLevel: Prisma.TransactionIsolationLevel.RepeatableRead,
    });
  }

  read<T>(work: (repositories: Repositories) => Promise<T>): Promise<T> {
    return work(this.plain);
  }
}
