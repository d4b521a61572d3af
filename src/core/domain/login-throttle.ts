/**
 * Sign-in attempts are counted per email and per client address in fixed windows, BEFORE the
 * password is verified, so a burst of concurrent guesses cannot all be evaluated: at most
 * `threshold` attempts per window are. The attempt beyond it locks sign-in for that email (or from
 * that address) until `lockedUntil`; the correct password does not help while locked. A successful
 * sign-in gives its attempt back.
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

/** 5 wrong passwords for one email in 15 minutes lock that email for 15 minutes. */
export const EMAIL_THROTTLE: ThrottleRule = { threshold: 5, windowMs: 15 * MINUTE, lockMs: 15 * MINUTE };
/**
 * 20 failures from one address in 15 minutes lock that address for 15 minutes: higher than per
 * email because one address may be a whole office behind NAT, low enough to stop guessing across
 * many emails.
 */
export const ADDRESS_THROTTLE: ThrottleRule = { threshold: 20, windowMs: 15 * MINUTE, lockMs: 15 * MINUTE };

export function emailThrottleKey(normalisedEmail: string): string {
  return `email:${normalisedEmail}`;
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
