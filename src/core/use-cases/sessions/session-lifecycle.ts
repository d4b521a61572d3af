import { CONSOLE_KEY_NAME, type ApiKey } from '../../domain/account';
import { SESSION_ABSOLUTE_MS, sessionDeadline, type Session } from '../../domain/session';
import type { CredentialHasher } from '../../ports/credential-hasher';
import type { IdGenerator } from '../../ports/id-generator';
import type { Repositories } from '../../ports/repositories';

export interface OpenedSession {
  /** Goes into the cookie; only its digest is stored. */
  readonly token: string;
  readonly session: Session;
}

/**
 * A new session of the account with its try-it console key. The key is derived from the session
 * token, so the console can be given it on every page without the key being stored; it expires
 * with the session. Runs inside the caller's transaction.
 */
export async function openSession(
  repos: Repositories,
  deps: { readonly ids: IdGenerator; readonly hasher: CredentialHasher },
  accountId: string,
  now: Date,
): Promise<OpenedSession> {
  const token = deps.ids.newSessionToken();
  const consoleSecret = deps.hasher.deriveConsoleKey(token);
  const base = {
    id: deps.ids.newId('ses'),
    accountId,
    tokenDigest: deps.hasher.digestSessionToken(token),
    createdAt: now,
    lastSeenAt: now,
    expiresAt: new Date(now.getTime() + SESSION_ABSOLUTE_MS),
  };
  const consoleKey: ApiKey = {
    id: deps.ids.newId('key'),
    accountId,
    prefix: consoleSecret.prefix,
    digest: deps.hasher.digestApiKey(consoleSecret.key),
    name: CONSOLE_KEY_NAME,
    createdAt: now,
    lastUsedAt: null,
    revokedAt: null,
    expiresAt: sessionDeadline(base),
    permissions: null,
  };
  const session: Session = { ...base, consoleKeyId: consoleKey.id };
  await repos.apiKeys.add(consoleKey);
  await repos.sessions.add(session);
  return { token, session };
}

/**
 * Removes the sessions and revokes their console keys, inside the caller's unit of work: the keys
 * are read first, since a unit reads before it writes.
 */
export async function endSessions(repos: Repositories, sessions: readonly Session[], now: Date): Promise<void> {
  const keys = await Promise.all(
    sessions.flatMap((session) =>
      session.consoleKeyId === null ? [] : [repos.apiKeys.findForAccount(session.accountId, session.consoleKeyId)],
    ),
  );
  for (const session of sessions) await repos.sessions.remove(session.id);
  for (const key of keys) if (key && key.revokedAt === null) await repos.apiKeys.save({ ...key, revokedAt: now });
}
