import type { AttemptToRecord, LoginCounter } from '../domain/login-throttle';

/** Sign-in attempts, counted by key (an address, an email, the pair): shared by every process. */
export interface SignInAttempts {
  /**
   * Counts one attempt atomically and answers the counter after it (concurrent attempts are all
   * counted, each sees its own count); the count beyond the threshold sets the lock. A counter
   * that is locked already is left as it is: attempts during a lock do not prolong it.
   */
  record(attempt: AttemptToRecord): Promise<LoginCounter>;
  /** Gives one attempt back (a successful sign-in must not use up an address's allowance). */
  forgive(key: string): Promise<void>;
  clear(key: string): Promise<void>;
}

/** When each API key was last used. */
export interface KeyUses {
  /** Sets the key's `lastUsedAt = at` unless it is already after `unlessSince`: one conditional write. */
  record(keyId: string, at: Date, unlessSince: Date): Promise<void>;
}

/**
 * The counters that are one statement by design: each change applies at once and on its own, and
 * concurrent changes from every process all count. They are no account's state, so no unit of work
 * holds them, and the repositories of one do not offer them.
 */
export interface Counters {
  readonly signInAttempts: SignInAttempts;
  readonly keyUses: KeyUses;
}
