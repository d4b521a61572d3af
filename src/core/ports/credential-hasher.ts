import type { PasswordWorkTurn } from './password-work';

/** A password presented to be checked: as typed, and normalised as new hashes hold it (password.ts). */
export interface PresentedPassword {
  readonly typed: string;
  readonly normalised: string;
}

export interface PasswordCheck {
  readonly matches: boolean;
  /** The hash was made with weaker parameters or before passwords were normalised: hash it again. */
  readonly outdated: boolean;
}

/**
 * Hashing of secrets: slow for passwords (guessable), a plain digest for random API keys. The slow
 * ones take their `turn` in the password work's pool, and throw `PasswordChecksBusy` when too
 * much waits there.
 */
export interface CredentialHasher {
  /** A hash of the normalised password, with the current parameters. */
  hashPassword(normalised: string, turn: PasswordWorkTurn): Promise<string>;
  /** Whether the password is the one the hash holds, in the form that hash was made of. */
  verifyPassword(password: PresentedPassword, hash: string, turn: PasswordWorkTurn): Promise<PasswordCheck>;
  digestApiKey(key: string): string;
  /** What is stored of a session token: a digest, distinct from any API key's. */
  digestSessionToken(token: string): string;
  /**
   * The try-it console's API key of a session, derived from the session's token: the browser
   * presents the token on every page, so the key can be shown again without ever being stored.
   */
  deriveConsoleKey(sessionToken: string): { readonly key: string; readonly prefix: string };
}
