import { WrongCurrentPassword } from '../../domain/errors';
import { checkNewPassword, normalisePassword, passwordContext } from '../../domain/password';
import type { CommonPasswords } from '../../ports/common-passwords';
import type { SignInEvents } from '../../ports/sign-in-events';
import type { CredentialHasher } from '../../ports/credential-hasher';
import type { TransactionBoundary } from '../../ports/transaction-boundary';
import type { WallClock } from '../../ports/wall-clock';
import { countAttempt, settleRightAttempt } from './password-attempts';
import { endSessions } from './session-lifecycle';

export interface ChangePasswordInput {
  readonly accountId: string;
  /** The session asking: it stays open, the account's others end. */
  readonly sessionId: string;
  readonly currentPassword: string;
  readonly newPassword: string;
  /** Where the request comes from: a wrong current password counts as a wrong sign-in from there. */
  readonly clientAddress: string;
  /** The browser signed in to this account before (its known-device cookie), as at sign-in. */
  readonly knownDevice: boolean;
}

/**
 * A signed-in account replaces its password: the new one held to the rule of new passwords, the
 * current one proven first (a session left open is not the password), each attempt counted as a
 * sign-in's, against the same locks. The account's other sessions end, with their console keys:
 * whoever knew the old password is signed out.
 */
export class ChangePassword {
  constructor(
    private readonly transactions: TransactionBoundary,
    private readonly hasher: CredentialHasher,
    private readonly clock: WallClock,
    private readonly commonPasswords: CommonPasswords,
    private readonly events: SignInEvents,
  ) {}

  async execute(input: ChangePasswordInput): Promise<void> {
    const account = await this.transactions.read((repos) => repos.accounts.findById(input.accountId));
    if (!account) throw new WrongCurrentPassword();
    checkNewPassword(input.newPassword, this.commonPasswords, passwordContext(account.email));

    const now = this.clock.now();
    const who = { email: account.email, clientAddress: input.clientAddress, knownDevice: input.knownDevice };
    const attempt = await this.transactions.count(({ signInAttempts }) => countAttempt(signInAttempts, who, now));
    if (!attempt.mayEvaluate) {
      this.events.attempted('password_change', 'locked');
      throw new WrongCurrentPassword();
    }
    const current = { typed: input.currentPassword, normalised: normalisePassword(input.currentPassword) };
    if (!(await this.hasher.verifyPassword(current, account.passwordHash)).matches) {
      this.events.attempted('password_change', 'wrong');
      throw new WrongCurrentPassword();
    }

    const passwordHash = await this.hasher.hashPassword(normalisePassword(input.newPassword));
    await this.transactions.count(({ signInAttempts }) => settleRightAttempt(signInAttempts, attempt));
    await this.transactions.exclusive(account.id, async (repos) => {
      const [stored, sessions] = await Promise.all([
        repos.accounts.findById(account.id),
        repos.sessions.listForAccount(account.id),
      ]);
      // Changed meanwhile (another change, or a sign-in hashing it again): the password proven may
      // no longer be the account's. The person asks again, against the password of now.
      if (stored?.passwordHash !== account.passwordHash) throw new WrongCurrentPassword();
      await endSessions(
        repos,
        sessions.filter((session) => session.id !== input.sessionId),
        now,
      );
      await repos.accounts.updatePassword(account.id, { passwordHash, passwordChangeDue: false });
    });
    this.events.attempted('password_change', 'right');
  }
}
