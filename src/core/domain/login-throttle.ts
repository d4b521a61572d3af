/**
 * Sign-in attempts are counted in fixed windows BEFORE the password is verified, so a burst of
 * concurrent guesses cannot all be evaluated: at most `threshold` attempts per window are. The
 * attempt beyond it locks what it counts until `lockedUntil`; the correct password does not help
 * while locked. Three counters (docs/dashboard.md, "Sign-in throttling and lockout"):
 * - an account from one client address: the lock that guessing meets first, and that keeps the
 *   owner elsewhere signing in;
 * - a client address, whatever the accounts: guessing across many;
 * - an account from everywhere, slower, for browsers it has not been signed in from: guessing from
 *   many addresses. A browser that signed in to the account before (its known-device cookie) is
 *   not counted in it and passes its lock, so an attacker elsewhere cannot keep the owner out.
 */
export interface LoginCounter {
  readonly key: string;
  readonly failures: number;
  readonly windowStartedAt: Date;
  readonly lockedUntil: Date | null;
}

export interface ThrottleRule {
  readonly threshold: number;
  readonly windowMs: number;
  readonly lockMs: number;
}

const MINUTE = 60_000;

/** 5 wrong passwords for one email from one client address in 15 minutes lock that pair for 15 minutes. */
export const ACCOUNT_ADDRESS_THROTTLE: ThrottleRule = { threshold: 5, windowMs: 15 * MINUTE, lockMs: 15 * MINUTE };
/**
 * 50 wrong passwords for one email in an hour, from browsers not known to it, lock it for an hour
 * for such browsers: it takes at least three addresses at their own limit to reach, and stays well
 * under NIST SP 800-63B's 100 consecutive failures.
 */
export const ACCOUNT_THROTTLE: ThrottleRule = { threshold: 50, windowMs: 60 * MINUTE, lockMs: 60 * MINUTE };
/**
 * 20 failures from one address in 15 minutes lock that address for 15 minutes: higher than per
 * email because one address may be a whole office behind NAT, low enough to stop guessing across
 * many emails.
 */
export const ADDRESS_THROTTLE: ThrottleRule = { threshold: 20, windowMs: 15 * MINUTE, lockMs: 15 * MINUTE };

export function accountThrottleKey(normalisedEmail: string): string {
  return `email:${normalisedEmail}`;
}

export function accountAddressThrottleKey(normalisedEmail: string, address: string): string {
  return `email-address:${normalisedEmail}|${address}`;
}

export function addressThrottleKey(address: string): string {
  return `address:${address}`;
}

/** The attempt just counted may be evaluated: no lock, and within the window's allowance. */
export function mayEvaluate(counter: LoginCounter, rule: ThrottleRule, now: Date): boolean {
  return !isLocked(counter, now) && counter.failures <= rule.threshold;
}

export function isLocked(counter: LoginCounter | undefined, now: Date): boolean {
  return counter?.lockedUntil != null && counter.lockedUntil.getTime() > now.getTime();
}

/** What the store needs to count one attempt atomically, given the rule and the time. */
export interface AttemptToRecord {
  readonly key: string;
  readonly now: Date;
  /** A stored window that started before this is over: the count starts again at 1. */
  readonly windowStartsAfter: Date;
  readonly threshold: number;
  /** Set as `lockedUntil` when the count goes beyond the threshold. */
  readonly lockUntil: Date;
}

export function attemptToRecord(key: string, rule: ThrottleRule, now: Date): AttemptToRecord {
  return {
    key,
    now,
    windowStartsAfter: new Date(now.getTime() - rule.windowMs),
    threshold: rule.threshold,
    lockUntil: new Date(now.getTime() + rule.lockMs),
  };
}
