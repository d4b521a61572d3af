/**
 * A signed-in browser. The cookie holds a random token; only its digest is stored. A session ends
 * after `SESSION_IDLE_MS` without a request, and `SESSION_ABSOLUTE_MS` after sign-in at the latest.
 */
export interface Session {
  readonly id: string;
  readonly accountId: string;
  readonly tokenDigest: string;
  /** The API key the try-it console uses while this session lasts. */
  readonly consoleKeyId: string | null;
  readonly createdAt: Date;
  readonly lastSeenAt: Date;
  /** The absolute limit, fixed at sign-in. */
  readonly expiresAt: Date;
}

/** 12 hours idle: a working day with long breaks stays signed in, a browser left overnight does not. */
export const SESSION_IDLE_MS = 12 * 60 * 60_000;
/** 7 days at most, however active: a stolen cookie cannot be kept alive for ever. */
export const SESSION_ABSOLUTE_MS = 7 * 24 * 60 * 60_000;
/** Activity is recorded to the minute: a page view does not cost a write each time. */
export const SESSION_TOUCH_RESOLUTION_MS = 60_000;

/** When the session ends if nothing else happens: the idle limit, capped by the absolute one. */
export function sessionDeadline(session: Pick<Session, 'lastSeenAt' | 'expiresAt'>): Date {
  return new Date(Math.min(session.lastSeenAt.getTime() + SESSION_IDLE_MS, session.expiresAt.getTime()));
}

export function isSessionExpired(session: Session, now: Date): boolean {
  return sessionDeadline(session).getTime() <= now.getTime();
}

/**
 * Signed-in browsers one account may have at once. Each holds a console key with the request rate
 * and the event streams of a key, so this bounds what one account's sessions add to its share of
 * the service; signing in past it ends the account's oldest session (docs/dashboard.md#sessions).
 */
export const MAX_SESSIONS_PER_ACCOUNT = 10;

/**
 * The sessions to end before the account opens one more: those that have ended, and the oldest
 * live ones (by sign-in, then id) beyond what leaves room for the new one under the cap.
 */
export function sessionsToEndBeforeOpening(sessions: readonly Session[], now: Date): Session[] {
  const ended = sessions.filter((session) => isSessionExpired(session, now));
  const live = sessions
    .filter((session) => !isSessionExpired(session, now))
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return [...ended, ...live.slice(0, Math.max(0, live.length - (MAX_SESSIONS_PER_ACCOUNT - 1)))];
}

/** Whether `now` is worth recording as the session's last activity. */
export function sessionNeedsTouch(session: Session, now: Date): boolean {
  return now.getTime() - session.lastSeenAt.getTime() >= SESSION_TOUCH_RESOLUTION_MS;
}
