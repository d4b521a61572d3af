import { type Account, isKnownDevice, normaliseEmail } from '../../domain/account';
import { normalisePassword, passwordContext, refusalOf } from '../../domain/password';
import type { CommonPasswords } from '../../ports/common-passwords';
import type { SignInEvents } from '../../ports/sign-in-events';
import { InvalidCredentials } from '../../domain/errors';
import { sessionsToEndBeforeOpening } from '../../domain/session';
import type { CredentialHasher, PasswordCheck, PresentedPassword } from '../../ports/credential-hasher';
import type { IdGenerator } from '../../ports/id-generator';
import { type PasswordClient, type PasswordWorkTurn, turnOf } from '../../ports/password-work';
import type { StoredPassword } from '../../ports/repositories';
import type { TransactionBoundary } from '../../ports/transaction-boundary';
import type { WallClock } from '../../ports/wall-clock';
import {
  type CountedAttempt,
  countAttempt,
  giveBackAttempt,
  neverVerified,
  settleRightAttempt,
} from './password-attempts';
import { endSessions, openSession, type OpenedSession } from './session-lifecycle';

export interface LogInInput extends PasswordClient {
  readonly email: string;
  readonly password: string;
  /**
   * The stamp of the browser's device cookie for this email (its signature and age checked), null
   * when it has none. Of the account's current stamp, the browser is known: the account-wide
   * back-off neither counts nor stops it, and its password work goes first.
   */
  readonly deviceStamp: number | null;
}

/** A session opened, and the stamp the browser's device cookie is to carry. */
export interface LoggedIn extends OpenedSession {
  readonly deviceStamp: number;
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
    private readonly events: SignInEvents,
  ) {}

  async execute(input: LogInInput): Promise<LoggedIn> {
    const email = normaliseEmail(input.email);
    const now = this.clock.now();
    // The account first: whether the browser is known depends on its stamp, which a password
    // change moves, and decides which counters the attempt meets.
    const found = await this.transactions.read((repos) => repos.accounts.findByEmail(email));
    const knownDevice = found !== null && isKnownDevice(found, input.deviceStamp);
    const attempt = await this.transactions.count(({ signInAttempts }) =>
      countAttempt(signInAttempts, { email, clientAddress: input.clientAddress, knownDevice }, now),
    );
    // Locked: refuse without spending a password verification (the answer is the same as for a
    // wrong password, and an unknown email locks just the same, so nothing is revealed).
    if (!attempt.mayEvaluate) {
      this.events.attempted('sign_in', 'locked');
      throw new InvalidCredentials();
    }

    const presented = { typed: input.password, normalised: normalisePassword(input.password) };
    const turn = turnOf(input, knownDevice);
    let account = found;
    // Twice at most: the hash verified may be replaced before the session opens (a password
    // change, or another sign-in hashing it again): the password is checked against the new one.
    for (let round = 0; round < 2; round++) {
      const check = await this.verified(presented, account, turn, round === 0 ? attempt : null);
      if (!account || !check.matches) {
        this.events.attempted('sign_in', 'wrong');
        throw new InvalidCredentials();
      }
      if (round === 0)
        await this.transactions.count(({ signInAttempts }) => settleRightAttempt(signInAttempts, attempt));
      // The password is right: now is the one moment it can be hashed again and held to today's rule.
      const password = await this.passwordAsOfNow(account, presented.normalised, check.outdated, turn);
      const opened = await this.open(account, password, now);
      if (opened) {
        this.events.attempted('sign_in', 'right');
        return opened;
      }
      const id = account.id;
      account = await this.transactions.read((repos) => repos.accounts.findById(id));
    }
    // Its hash changed twice while it checked: counted as refused, as answered.
    this.events.attempted('sign_in', 'wrong');
    throw new InvalidCredentials();
  }

  /**
   * The password checked against the account's hash, or the dummy hash when there is no account.
   * Refused by the password work's pool as busy, or dropped there because the client went away,
   * the attempt it counted (`counted`) is given back: it was never verified.
   */
  private async verified(
    presented: PresentedPassword,
    account: Account | null,
    turn: PasswordWorkTurn,
    counted: CountedAttempt | null,
  ): Promise<PasswordCheck> {
    try {
      const hash = account?.passwordHash ?? (await this.dummy(turn));
      return await this.hasher.verifyPassword(presented, hash, turn);
    } catch (error) {
      if (neverVerified(error) && counted)
        await this.transactions.count(({ signInAttempts }) => giveBackAttempt(signInAttempts, counted));
      throw error;
    }
  }

  /** The session, unless the account's password hash is no longer the one verified (then null). */
  private open(
    verified: Account,
    password: Omit<StoredPassword, 'deviceStamp'> | null,
    now: Date,
  ): Promise<LoggedIn | null> {
    return this.transactions.exclusive(verified.id, async (repos) => {
      const [account, sessions] = await Promise.all([
        repos.accounts.findById(verified.id),
        repos.sessions.listForAccount(verified.id),
      ]);
      if (account?.passwordHash !== verified.passwordHash) return null;
      // Sessions that ended unseen are cleared here, and the oldest beyond the cap ended, each
      // with its console key revoked.
      await endSessions(repos, sessionsToEndBeforeOpening(sessions, now), now);
      const opened = await openSession(repos, { ids: this.ids, hasher: this.hasher }, verified.id, now);
      // Hashed again or marked: the same password, so the browsers that know the account still do.
      if (password) await repos.accounts.updatePassword(verified.id, { ...password, deviceStamp: account.deviceStamp });
      return { ...opened, deviceStamp: account.deviceStamp };
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
    turn: PasswordWorkTurn,
  ): Promise<Omit<StoredPassword, 'deviceStamp'> | null> {
    const refusal = await refusalOf(normalised, this.commonPasswords, passwordContext(account.email), turn);
    const passwordChangeDue = refusal !== null;
    if (!outdated && passwordChangeDue === account.passwordChangeDue) return null;
    const passwordHash = outdated ? await this.hasher.hashPassword(normalised, turn) : account.passwordHash;
    return { passwordHash, passwordChangeDue };
  }

  /**
   * A real hash of the hasher's kind, made once, for unknown emails to be verified against; in
   * the turn of the first sign-in that needs it. Made again when that one was refused (the pool
   * was busy), rather than every later one failing with it.
   */
  private dummy(turn: PasswordWorkTurn): Promise<string> {
    if (this.dummyHash === null) {
      const made = this.hasher.hashPassword('not the password of any account', turn);
      this.dummyHash = made;
      void made.catch(() => {
        if (this.dummyHash === made) this.dummyHash = null;
      });
    }
    return this.dummyHash;
  }
}
