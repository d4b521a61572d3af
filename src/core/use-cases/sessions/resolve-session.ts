import { SessionRequired } from '../../domain/errors';
import { isSessionExpired, sessionDeadline, sessionNeedsTouch, type Session } from '../../domain/session';
import type { CredentialHasher } from '../../ports/credential-hasher';
import type { TransactionBoundary } from '../../ports/transaction-boundary';
import type { WallClock } from '../../ports/wall-clock';
import { endSessions } from './session-lifecycle';

export interface SignedIn {
  readonly session: Session;
  readonly email: string;
  /** Its password was accepted under an earlier rule that refuses it now: the dashboard asks for another. */
  readonly passwordChangeDue: boolean;
  /** When the session ends without further activity. */
  readonly deadline: Date;
}

/**
 * The signed-in account behind a session cookie's token, or `SessionRequired`. Activity moves the
 * idle limit (recorded once a minute at most) and the console key's expiry with it; an ended
 * session is removed with its console key on sight.
 */
export class ResolveSession {
  constructor(
    private readonly transactions: TransactionBoundary,
    private readonly hasher: CredentialHasher,
    private readonly clock: WallClock,
  ) {}

  async execute(input: { readonly sessionToken: string }): Promise<SignedIn> {
    const digest = this.hasher.digestSessionToken(input.sessionToken);
    const now = this.clock.now();
    const found = await this.transactions.read((repos) => repos.sessions.findByTokenDigest(digest));
    if (!found) throw new SessionRequired();
    if (isSessionExpired(found, now)) {
      await this.transactions.exclusive(found.accountId, (repos) => endSessions(repos, [found], now));
      throw new SessionRequired();
    }

    const session = sessionNeedsTouch(found, now) ? await this.touch(found, now) : found;
    const account = await this.transactions.read((repos) => repos.accounts.findById(session.accountId));
    if (!account) throw new SessionRequired();
    return {
      session,
      email: account.email,
      passwordChangeDue: account.passwordChangeDue,
      deadline: sessionDeadline(session),
    };
  }

  private touch(session: Session, now: Date): Promise<Session> {
    return this.transactions.exclusive(session.accountId, async (repos) => {
      const touched: Session = { ...session, lastSeenAt: now };
      const key =
        session.consoleKeyId === null
          ? null
          : await repos.apiKeys.findForAccount(session.accountId, session.consoleKeyId);
      await repos.sessions.save(touched);
      if (key && key.revokedAt === null) await repos.apiKeys.save({ ...key, expiresAt: sessionDeadline(touched) });
      return touched;
    });
  }
}
