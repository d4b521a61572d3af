import { FIRST_DEVICE_STAMP, normaliseEmail, type Account } from '../../domain/account';
import { EmailAlreadyRegistered } from '../../domain/errors';
import { checkNewPassword, normalisePassword, passwordContext } from '../../domain/password';
import { Timeline } from '../../domain/timeline';
import { Traveller } from '../../domain/traveller';
import type { CommonPasswords } from '../../ports/common-passwords';
import type { CredentialHasher } from '../../ports/credential-hasher';
import type { IdGenerator } from '../../ports/id-generator';
import { type PasswordClient, turnOf } from '../../ports/password-work';
import type { TransactionBoundary } from '../../ports/transaction-boundary';
import type { WallClock } from '../../ports/wall-clock';
import { newApiKey } from '../api-keys/new-api-key';

export interface CreateAccountInput extends PasswordClient {
  readonly email: string;
  readonly password: string;
}

export interface CreatedAccount {
  readonly account: Account;
  /** The only time the whole key is available: only its digest is stored. */
  readonly apiKey: string;
}

/** Opens an account with its first API key, its clock and its `primary` timeline, atomically. */
export class CreateAccount {
  constructor(
    private readonly transactions: TransactionBoundary,
    private readonly hasher: CredentialHasher,
    private readonly ids: IdGenerator,
    private readonly clock: WallClock,
    private readonly commonPasswords: CommonPasswords,
  ) {}

  async execute(input: CreateAccountInput): Promise<CreatedAccount> {
    // First: a refused password costs no database read.
    const email = normaliseEmail(input.email);
    // A new account: no browser knows it yet.
    const turn = turnOf(input, false);
    await checkNewPassword(input.password, this.commonPasswords, passwordContext(email), turn);
    const taken = await this.transactions.read((repos) => repos.accounts.findByEmail(email));
    if (taken) throw new EmailAlreadyRegistered();

    // Hash outside the transaction: scrypt is deliberately slow and must not hold a connection.
    const passwordHash = await this.hasher.hashPassword(normalisePassword(input.password), turn);
    const now = this.clock.now();
    const account: Account = {
      id: this.ids.newId('acc'),
      email,
      passwordHash,
      passwordChangeDue: false,
      deviceStamp: FIRST_DEVICE_STAMP,
      createdAt: now,
    };
    const first = newApiKey({ ids: this.ids, hasher: this.hasher }, account.id, now, { name: null, permissions: null });

    // The account is new: its work has no state to wait for, and opens it whole or not at all.
    await this.transactions.exclusive(account.id, async (repos) => {
      await repos.accounts.add(account);
      await repos.apiKeys.add(first.key);
      await repos.travellers.add(Traveller.newcomer(account.id, now));
      await repos.timelines.add(Timeline.primary(account.id, now));
    });
    return { account, apiKey: first.secret };
  }
}
