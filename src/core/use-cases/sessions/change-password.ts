import { WrongCurrentPassword } from '../../domain/errors';
import {
  ACCOUNT_ADDRESS_THROTTLE,
  accountAddressThrottleKey,
  attemptToRecord,
  mayEvaluate,
} from '../../domain/login-throttle';
import { checkNewPassword, normalisePassword, passwordContext } from '../../domain/password';
import type { CommonPasswords } from '../../ports/common-passwords';
import type { CredentialHasher } from '../../ports/credential-hasher';
import type { TransactionBoundary } from '../../ports/transaction-boundary';
import type { WallClock } from '../../ports/wall-clock';
import { endSessions } from './session-lifecycle';

export interface ChangePasswordInput {
  readonly accountId: string;
  /** The session asking: it stays open, the account's others end. */
  readonly sessionId: string;
  readonly currentPassword: string;
  readonly newPassword: string;
  /** Where the request comes from: wrong current passwords count as wrong sign-ins from there. */
  readonly clientAddress: string;
}

/**
 * A signed-in account replaces its password: the new one held to the rule of new passwords, the
 * current one proven first (a session left open is not the password), guesses at it counted as
 * sign-in failures of that address. The account's other sessions end, with their console keys:
 * whoever knew the old password is signed out.
 */
export class ChangePassword {
  constructor(
    private readonly transactions: TransactionBoundary,
    private readonly hasher: CredentialHasher,
    private readonly clock: WallClock,
    private readonly commonPasswords: CommonPasswords,
  ) {}

  async execute(input: ChangePasswordInput): Promise<void> {
    const account = await this.transactions.read((repos) => repos.accounts.findById(input.accountId));
    if (!account) throw new WrongCurrentPassword();
    checkNewPassword(input.newPassword, this.commonPasswords, passwordContext(account.email));

    const now = this.clock.now();
    const throttleKey = accountAddressThrottleKey(account.email, input.clientAddress);
    const counter = await this.transactions.read((repos) =>
      repos.loginThrottles.recordAttempt(attemptToRecord(throttleKey, ACCOUNT_ADDRESS_THROTTLE, now)),
    );
    if (!mayEvaluate(counter, ACCOUNT_ADDRESS_THROTTLE, now)) throw new WrongCurrentPassword();
    const current = { typed: input.currentPassword, normalised: normalisePassword(input.currentPassword) };
    if (!(await this.hasher.verifyPassword(current, account.passwordHash)).matches) throw new WrongCurrentPassword();

    const passwordHash = await this.hasher.hashPassword(normalisePassword(input.newPassword));
    await this.transactions.read((repos) => repos.loginThrottles.clear(throttleKey));
    await this.transactions.exclusive(account.id, async (repos) => {
      const sessions = await repos.sessions.listForAccount(account.id);
      await endSessions(
        repos,
        sessions.filter((session) => session.id !== input.sessionId),
        now,
      );
      await repos.accounts.updatePassword(account.id, { passwordHash, passwordChangeDue: false });
    });
  }
}
