import { isActiveApiKey } from '../../domain/account';
import type { CredentialHasher } from '../../ports/credential-hasher';
import type { TransactionBoundary } from '../../ports/transaction-boundary';
import type { WallClock } from '../../ports/wall-clock';
import type { ResolveSession, SignedIn } from './resolve-session';

export interface ConsoleAccess {
  readonly signedIn: SignedIn;
  /** The session's console key, or null when its owner revoked it on the dashboard. */
  readonly apiKey: string | null;
}

/** What the try-it console of a signed-in browser needs: the session's own API key. */
export class OpenConsole {
  constructor(
    private readonly resolveSession: ResolveSession,
    private readonly transactions: TransactionBoundary,
    private readonly hasher: CredentialHasher,
    private readonly clock: WallClock,
  ) {}

  async execute(input: { readonly sessionToken: string }): Promise<ConsoleAccess> {
    const signedIn = await this.resolveSession.execute(input);
    const { accountId, consoleKeyId } = signedIn.session;
    if (consoleKeyId === null) return { signedIn, apiKey: null };
    const key = await this.transactions.read((repos) => repos.apiKeys.findForAccount(accountId, consoleKeyId));
    const usable = key !== null && isActiveApiKey(key, this.clock.now());
    return { signedIn, apiKey: usable ? this.hasher.deriveConsoleKey(input.sessionToken).key : null };
  }
}
