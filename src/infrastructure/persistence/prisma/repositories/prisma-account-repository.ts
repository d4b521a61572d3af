import type { Account } from '../../../../core/domain/account';
import { EmailAlreadyRegistered } from '../../../../core/domain/errors';
import type { AccountRepository } from '../../../../core/ports/repositories';
import type { Db } from '../db';
import { isUniqueViolation } from '../prisma-errors';

export class PrismaAccountRepository implements AccountRepository {
  constructor(private readonly db: Db) {}

  async add(account: Account): Promise<void> {
    try {
      await this.db.account.create({ data: account });
    } catch (error) {
      // Two sign-ups racing for one email: the unique index decides, the loser gets the domain answer.
      if (isUniqueViolation(error)) throw new EmailAlreadyRegistered();
      throw error;
    }
  }

  findByEmail(email: string): Promise<Account | null> {
    return this.db.account.findUnique({ where: { email } });
  }

  findById(accountId: string): Promise<Account | null> {
    return this.db.account.findUnique({ where: { id: accountId } });
  }
}
