import type { PasswordWorkTurn } from './password-work';

/** The passwords attackers try first: the most used ones of breached password lists, and what is made of them. */
export interface CommonPasswords {
  /**
   * Whether a guesser would reach this (normalised) password early: one of the list's, in any case,
   * or made from its words, repeats, sequences, keyboard runs, dates, look-alike digits, or the
   * words of `context` (what the account is known by). Takes its `turn` in the password work's
   * pool, and throws `PasswordChecksBusy` when too much waits there.
   */
  matches(password: string, context: readonly string[], turn: PasswordWorkTurn): Promise<boolean>;
}
