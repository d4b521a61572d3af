import type { Account } from '../../../../core/domain/account';
import { EmailAlreadyRegistered } from '../../../../core/domain/errors';
import type { AccountRepository, StoredPassword } from '../../../../core/ports/repositories';
import type { Account as AccountRow, PrismaClient } from '../../../database/driver/generated/client';
import { isUniqueViolation } from '../../../database/driver/postgres-errors';
import type { Writes } from '../unit-of-work/writes';

export class PostgresAccountRepository implements AccountRepository {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly writes: Writes,
  ) {}

  add(account: Account): Promise<void> {
    const row = {
      id: account.id,
      email: account.email,
      password_hash: account.passwordHash,
      password_change_due: account.passwordChangeDue,
      device_stamp: account.deviceStamp,
      created_at: account.createdAt,
    };
    // Two sign-ups racing for one email: the unique index decides, the loser gets the domain answer.
    return this.writes.insert('accounts', ['id'], row, (error) =>
      isUniqueViolation(error, 'accounts_email_key') ? new EmailAlreadyRegistered() : null,
    );
  }

  async findByEmail(email: string): Promise<Account | null> {
    const row = await this.prisma.account.findUnique({ where: { email } });
    return row && accountOf(row);
  }

  async findById(accountId: string): Promise<Account | null> {
    const row = await this.prisma.account.findUnique({ where: { id: accountId } });
    return row && accountOf(row);
  }

  updatePassword(accountId: string, password: StoredPassword): Promise<void> {
    return this.writes.update(
      'accounts',
      { id: accountId },
      {
        password_hash: password.passwordHash,
        password_change_due: password.passwordChangeDue,
        device_stamp: password.deviceStamp,
      },
    );
  }
}

function accountOf(row: AccountRow): Account {
  return {
    id: row.id,
    email: row.email,
    passwordHash: row.passwordHash,
    passwordChangeDue: row.passwordChangeDue,
    deviceStamp: row.deviceStamp,
    createdAt: row.createdAt,
  };
}
