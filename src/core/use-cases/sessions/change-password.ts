import { isKnownDevice } from '../../domain/account';
import { WrongCurrentPassword } from '../../domain/errors';
import { checkNewPassword, normalisePassword, passwordContext } from '../../domain/password';
import type { CommonPasswords } from '../../ports/common-passwords';
import type { SignInEvents } from '../../ports/sign-in-events';
import type { CredentialHasher } from '../../ports/credential-hasher';
import { type PasswordClient, turnOf } from '../../ports/password-work';
import type { TransactionBoundary } from '../../ports/transaction-boundary';
import type { WallClock } from '../../ports/wall-clock';
import { countAttempt, giveBackAttempt, neverVerified, settleRightAttempt } from './password-attempts';
import { endSessions } from './session-lifecycle';

/** `clientAddress`: a wrong current password counts as a wrong sign-in from there. */
export interface ChangePasswordInput extends PasswordClient {
  readonly accountId: string;
  /** The session asking: it stays open, the account's others end. */
  readonly sessionId: string;
  readonly currentPassword: string;
  readonly newPassword: string;
  /** The stamp of the browser's device cookie for the account's email, as at sign-in (LogInInput). */
  readonly deviceStamp: number | null;
}

/** The password changed: the stamp that the device cookie of the browser that changed it is to carry. */
export interface ChangedPassword {
  readonly deviceStamp: number;
}

/**
 * A signed-in account replaces its password: the new one held to the rule of new passwords, the
 * current one proven first (a session left open is not the password), each attempt counted as a
 * sign-in's, against the same locks. The account's other sessions end, with their console keys:
 * whoever knew the old password is signed out. Its device stamp moves on: only the browser that
 * changed it stays known to the account.
 */
export class ChangePassword {
  constructor(
    private readonly transactions: TransactionBoundary,
    private readonly hasher: CredentialHasher,
    private readonly clock: WallClock,
    private readonly commonPasswords: CommonPasswords,
    private readonly events: SignInEvents,
  ) {}

  async execute(input: ChangePasswordInput): Promise<ChangedPassword> {
    const account = await this.transactions.read((repos) => repos.accounts.findById(input.accountId));
    if (!account) throw new WrongCurrentPassword();
    const knownDevice = isKnownDevice(account, input.deviceStamp);
    const turn = turnOf(input, knownDevice);
    await checkNewPassword(input.newPassword, this.commonPasswords, passwordContext(account.email), turn);

    const now = this.clock.now();
    const who = { email: account.email, clientAddress: input.clientAddress, knownDevice };
    const attempt = await this.transactions.count(({ signInAttempts }) => countAttempt(signInAttempts, who, now));
    if (!attempt.mayEvaluate) {
      this.events.attempted('password_change', 'locked');
      throw new WrongCurrentPassword();
    }
    const current = { typed: input.currentPassword, normalised: normalisePassword(input.currentPassword) };
    const check = await this.hasher
      .verifyPassword(current, account.passwordHash, turn)
      .catch(async (error: unknown) => {
        // Never verified (busy, or its client gone): the attempt is given back.
        if (neverVerified(error))
          await this.transactions.count(({ signInAttempts }) => giveBackAttempt(signInAttempts, attempt));
        throw error;
      });
    if (!check.matches) {
      this.events.attempted('password_change', 'wrong');
      throw new WrongCurrentPassword();
    }
    await this.transactions.count(({ signInAttempts }) => settleRightAttempt(signInAttempts, attempt));

    const passwordHash = await this.hasher.hashPassword(normalisePassword(input.newPassword), turn);
    const deviceStamp = await this.transactions.exclusive(account.id, async (repos) => {
      const [stored, sessions] = await Promise.all([
        repos.accounts.findById(account.id),
        repos.sessions.listForAccount(account.id),
      ]);
      // Changed meanwhile (another change, or a sign-in hashing it again): the password proven may
      // no longer be the account's. The person asks again, against the password of now.
      if (stored?.passwordHash !== account.passwordHash) return null;
      await endSessions(
        repos,
        sessions.filter((session) => session.id !== input.sessionId),
        now,
      );
      const next = stored.deviceStamp + 1;
      await repos.accounts.updatePassword(account.id, { passwordHash, passwordChangeDue: false, deviceStamp: next });
      return next;
    });
    // Counted once, here: the unit of work may run its function again.
    if (deviceStamp === null) {
      this.events.attempted('password_change', 'superseded');
      throw new WrongCurrentPassword();
    }
    this.events.attempted('password_change', 'right');
    return { deviceStamp };
  }
}
