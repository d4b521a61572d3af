import type { CredentialHasher } from '../../ports/credential-hasher';
import type { TransactionBoundary } from '../../ports/transaction-boundary';
import type { WallClock } from '../../ports/wall-clock';
import { endSessions } from './session-lifecycle';

/** Ends the session and revokes its console key; signing out twice is not an error. */
export class LogOut {
  constructor(
    private readonly transactions: TransactionBoundary,
    private readonly hasher: CredentialHasher,
    private readonly clock: WallClock,
  ) {}

  async execute(input: { readonly sessionToken: string }): Promise<void> {
    const digest = this.hasher.digestSessionToken(input.sessionToken);
    const session = await this.transactions.read((repos) => repos.sessions.findByTokenDigest(digest));
    if (!session) return;
    await this.transactions.exclusive(session.accountId, (repos) => endSessions(repos, [session], this.clock.now()));
  }
}
