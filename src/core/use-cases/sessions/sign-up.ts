import type { CredentialHasher } from '../../ports/credential-hasher';
import type { IdGenerator } from '../../ports/id-generator';
import type { TransactionBoundary } from '../../ports/transaction-boundary';
import type { WallClock } from '../../ports/wall-clock';
import type { CreateAccount, CreateAccountInput, CreatedAccount } from '../accounts/create-account';
import { openSession, type OpenedSession } from './session-lifecycle';

export interface SignedUp extends CreatedAccount {
  readonly session: OpenedSession;
}

/** Opens an account from the browser and signs it in: the account as `POST /v1/accounts` makes it, plus a session. */
export class SignUp {
  constructor(
    private readonly createAccount: CreateAccount,
    private readonly transactions: TransactionBoundary,
    private readonly hasher: CredentialHasher,
    private readonly ids: IdGenerator,
    private readonly clock: WallClock,
  ) {}

  async execute(input: CreateAccountInput): Promise<SignedUp> {
    const created = await this.createAccount.execute(input);
    const session = await this.transactions.exclusive(created.account.id, (repos) =>
      openSession(repos, { ids: this.ids, hasher: this.hasher }, created.account.id, this.clock.now()),
    );
    return { ...created, session };
  }
}
