/**
 * How an attempt at an account's password ended: the password was right, wrong, or not checked (a
 * lock held); or, for a password change, right but no longer the account's when the new one was to
 * be stored (`superseded`: another change, or a sign-in hashing it again, came first).
 */
export type SignInOutcome = 'right' | 'wrong' | 'locked' | 'superseded';

/** Where a password was tried: signing in, or proving the current one to change it. */
export type SignInPath = 'sign_in' | 'password_change';

/**
 * Told of each attempt at a password, for the operators (a rise of `locked` is guessing meeting
 * the locks; docs/operations.md, "Metrics"). Never told who or from where.
 */
export interface SignInEvents {
  attempted(path: SignInPath, outcome: SignInOutcome): void;
}
