import { normaliseEmail } from '../../domain/account';
import { InvalidCredentials } from '../../domain/errors';
import {
  ADDRESS_THROTTLE,
  addressThrottleKey,
  EMAIL_THROTTLE,
  emailThrottleKey,
  failureToRecord,
  isLocked,
} from '../../domain/login-throttle';
import { SESSION_IDLE_MS } from '../../domain/session';
import type { CredentialHasher } from '../../ports/credential-hasher';
import type { IdGenerator } from '../../ports/id-generator';
import type { TransactionBoundary } from '../../ports/transaction-boundary';
import type { WallClock } from '../../ports/wall-clock';
import { endSession, openSession, type OpenedSession } from './session-lifecycle';

export interface LogInInput {
  readonly email: string;
  readonly password: string;
  /** Where the attempt comes from, for the per-address throttle. */
  readonly clientAddress: string;
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
  ) {}

  async execute(input: LogInInput): Promise<OpenedSession> {
    const email = normaliseEmail(input.email);
    const emailKey = emailThrottleKey(email);
    const addressKey = addressThrottleKey(input.clientAddress);
    const now = this.clock.now();
    const [account, counters] = await this.transactions.read(async (repos) =>
      Promise.all([repos.accounts.findByEmail(email), repos.loginThrottles.find([emailKey, addressKey])]),
    );

    const passwordMatches = await this.hasher.verifyPassword(input.password, account?.passwordHash ?? (await this.dummy()));
    const locked = counters.some((counter) => isLocked(counter, now));
    if (!account || !passwordMatches || locked) {
      // Failures while locked are not counted: the lock ends 15 minutes after it began, even
      // while someone keeps guessing, so an attacker cannot lock the owner out for ever.
      if (!locked) {
        await this.transactions.read(async (repos) => {
          await repos.loginThrottles.recordFailure(failureToRecord(emailKey, EMAIL_THROTTLE, now));
          await repos.loginThrottles.recordFailure(failureToRecord(addressKey, ADDRESS_THROTTLE, now));
        });
      }
      throw new InvalidCredentials();
    }

    return this.transactions.exclusive(account.id, async (repos) => {
      // The address counter stays: one good password must not wipe out guesses at other emails.
      await repos.loginThrottles.clear(emailKey);
      // Sessions that ended unseen are cleared here, revoking their console keys.
      const ended = await repos.sessions.listEndedForAccount(account.id, new Date(now.getTime() - SESSION_IDLE_MS), now);
      for (const session of ended) await endSession(repos, session, now);
      return openSession(repos, { ids: this.ids, hasher: this.hasher }, account.id, now);
    });
  }

  /** A real hash of the hasher's kind, made once, for unknown emails to be verified against. */
  private dummy(): Promise<string> {
    this.dummyHash ??= this.hasher.hashPassword('not the password of any account');
    return this.dummyHash;
  }
}
