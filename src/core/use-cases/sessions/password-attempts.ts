import {
  ACCOUNT_ADDRESS_THROTTLE,
  ACCOUNT_THROTTLE,
  accountAddressThrottleKey,
  accountThrottleKey,
  ADDRESS_THROTTLE,
  addressThrottleKey,
  attemptToRecord,
  mayEvaluate,
  type ThrottleRule,
} from '../../domain/login-throttle';
import { PasswordChecksBusy } from '../../domain/errors';
import type { SignInAttempts } from '../../ports/counters';
import { PasswordWorkWithdrawn } from '../../ports/password-work';

/** The password work never ran: refused as busy, or dropped because its client went away. */
export function neverVerified(error: unknown): boolean {
  return error instanceof PasswordChecksBusy || error instanceof PasswordWorkWithdrawn;
}

/** Who tries a password: of which email, from where, in a browser known to that email or not. */
export interface PasswordAttempter {
  /** Normalised (normaliseEmail). */
  readonly email: string;
  readonly clientAddress: string;
  /** The browser signed in to this email before: the account-wide back-off neither counts nor stops it. */
  readonly knownDevice: boolean;
}

/** An attempt counted against every lock that applies to it (docs/dashboard.md). */
export interface CountedAttempt {
  /** Within every allowance and under no lock: the password may be verified. */
  readonly mayEvaluate: boolean;
  /** The email from this address first, then the rest. */
  readonly counters: ReadonlyArray<readonly [key: string, rule: ThrottleRule]>;
}

/**
 * Counts an attempt at a password BEFORE it is verified: a burst of
 * concurrent guesses is counted in full, and only the attempts within the allowances get a
 * verification at all. Sign-in and the dashboard's password change count alike, so neither is a
 * way around the other's locks.
 */
export async function countAttempt(
  attempts: SignInAttempts,
  who: PasswordAttempter,
  now: Date,
): Promise<CountedAttempt> {
  const counters: Array<readonly [string, ThrottleRule]> = [
    [accountAddressThrottleKey(who.email, who.clientAddress), ACCOUNT_ADDRESS_THROTTLE],
    [addressThrottleKey(who.clientAddress), ADDRESS_THROTTLE],
    ...(who.knownDevice ? [] : [[accountThrottleKey(who.email), ACCOUNT_THROTTLE] as const]),
  ];
  const recorded = await Promise.all(counters.map(([key, rule]) => attempts.record(attemptToRecord(key, rule, now))));
  return {
    mayEvaluate: recorded.every((counter, index) => mayEvaluate(counter, counters[index][1], now)),
    counters,
  };
}

/**
 * The right password was given: this address's count for the email starts again; the others give
 * back only this attempt, so one good password wipes out neither guesses at other emails nor
 * guesses from elsewhere.
 */
export async function settleRightAttempt(attempts: SignInAttempts, attempt: CountedAttempt): Promise<void> {
  const [[pairKey], ...others] = attempt.counters;
  await Promise.all([attempts.clear(pairKey), ...others.map(([key]) => attempts.forgive(key))]);
}

/**
 * The attempt was counted but its password never verified (the password work's pool refused it as
 * busy): every counter gives it back, so that retrying when told to uses up no allowance.
 */
export async function giveBackAttempt(attempts: SignInAttempts, attempt: CountedAttempt): Promise<void> {
  await Promise.all(attempt.counters.map(([key]) => attempts.forgive(key)));
}
