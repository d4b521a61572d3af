import { type Account, normaliseEmail } from '../../domain/account';
import { normalisePassword, passwordContext, refusalOf } from '../../domain/password';
import type { CommonPasswords } from '../../ports/common-passwords';
import { InvalidCredentials } from '../../domain/errors';
import {
  ACCOUNT_ADDRESS_THROTTLE,
  ACCOUNT_THROTTLE,
  accountAddressThrottleKey,
  accountThrottleKey,
  ADDRESS_THROTTLE,
  addressThrottleKey,
  attemptToRecord,
  mayEvaluate,
  type ThrottleRule,
} from '../../domain/login-throttle';
import { sessionsToEndBeforeOpening } from '../../domain/session';
import type { CredentialHasher } from '../../ports/credential-hasher';
import type { IdGenerator } from '../../ports/id-generator';
import type { TransactionBoundary } from '../../ports/transaction-boundary';
import type { WallClock } from '../../ports/wall-clock';
import { endSessions, openSession, type OpenedSession } from './session-lifecycle';

export interface LogInInput {
  readonly email: string;
  readonly password: string;
  /** Where the attempt comes from, for the per-address throttles. */
  readonly clientAddress: string;
  /**
   * The browser proved it signed in to this email before (its known-device cookie): the
   * account-wide back-off neither counts nor stops it.
   */
  readonly knownDevice: boolean;
}

/**
 * Signs in with email and password. A wrong password, an unknown email and a locked sign-in fail
 * alike (`InvalidCredentials`) after the same work: one password verification, against a dummy
 * hash when there is no account, so neither the answer nor its timing tells whether the email
 * exists.
 */
export class LogIn {
  private dummyHash: Promise<string> | null = null;

  constructor(
    private readonly transactions: TransactionBoundary,
    private readonly hasher: CredentialHasher,
    private readonly ids: IdGenerator,
    private readonly clock: WallClock,
    private readonly commonPasswords: CommonPasswords,
  ) {}

  async execute(input: LogInInput): Promise<OpenedSession> {
    const email = normaliseEmail(input.email);
    const counted: Array<readonly [key: string, rule: ThrottleRule]> = [
      [accountAddressThrottleKey(email, input.clientAddress), ACCOUNT_ADDRESS_THROTTLE],
      [addressThrottleKey(input.clientAddress), ADDRESS_THROTTLE],
      ...(input.knownDevice ? [] : [[accountThrottleKey(email), ACCOUNT_THROTTLE] as const]),
    ];
    const now = this.clock.now();
    // Count the attempt before verifying it: a burst of concurrent guesses is counted in full, and
    // only the attempts within the allowance get a verification at all.
    const [account, ...counters] = await this.transactions.read(async (repos) =>
      Promise.all([
        repos.accounts.findByEmail(email),
        ...counted.map(([key, rule]) => repos.loginThrottles.recordAttempt(attemptToRecord(key, rule, now))),
      ]),
    );
    // Locked: refuse without spending a password verification (the answer is the same as for a
    // wrong password, and an unknown email locks just the same, so nothing is revealed).
    if (counters.some((counter, index) => !mayEvaluate(counter, counted[index][1], now)))
      throw new InvalidCredentials();

    const presented = { typed: input.password, normalised: normalisePassword(input.password) };
    const check = await this.hasher.verifyPassword(presented, account?.passwordHash ?? (await this.dummy()));
    if (!account || !check.matches) throw new InvalidCredentials();
    // The password is right: now is the one moment it can be hashed again and held to today's rule.
    const password = await this.passwordAsOfNow(account, presented.normalised, check.outdated);

    // This address's count for the email starts again; the others give back only this attempt, so
    // one good password wipes out neither guesses at other emails nor guesses from elsewhere.
    const [[pairKey], ...others] = counted;
    await this.transactions.read((repos) =>
      Promise.all([
        repos.loginThrottles.clear(pairKey),
        ...others.map(([key]) => repos.loginThrottles.forgiveAttempt(key)),
      ]),
    );
    return this.transactions.exclusive(account.id, async (repos) => {
      // Sessions that ended unseen are cleared here, and the oldest beyond the cap ended, each
      // with its console key revoked.
      const sessions = await repos.sessions.listForAccount(account.id);
      await endSessions(repos, sessionsToEndBeforeOpening(sessions, now), now);
      const opened = await openSession(repos, { ids: this.ids, hasher: this.hasher }, account.id, now);
      if (password) await repos.accounts.updatePassword(account.id, password);
      return opened;
    });
  }

  /**
   * What to store of a right password, if anything changes: a new hash when the stored one is
   * outdated (weaker parameters, or made before normalising), and whether the account is due to
   * change a password that today's rule refuses (it keeps signing in meanwhile).
   */
  private async passwordAsOfNow(
    account: Account,
    normalised: string,
    outdated: boolean,
  ): Promise<Pick<Account, 'passwordHash' | 'passwordChangeDue'> | null> {
    const passwordChangeDue = refusalOf(normalised, this.commonPasswords, passwordContext(account.email)) !== null;
    if (!outdated && passwordChangeDue === account.passwordChangeDue) return null;
    const passwordHash = outdated ? await this.hasher.hashPassword(normalised) : account.passwordHash;
    return { passwordHash, passwordChangeDue };
  }

  /** A real hash of the hasher's kind, made once, for unknown emails to be verified against. */
  private dummy(): Promise<string> {
    this.dummyHash ??= this.hasher.hashPassword('not the password of any account');
    return this.dummyHash;
  }
}
