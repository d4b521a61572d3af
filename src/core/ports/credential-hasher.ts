/** Hashing of secrets: slow for passwords (guessable), a plain digest for random API keys. */
export interface CredentialHasher {
  hashPassword(password: string): Promise<string>;
  verifyPassword(password: string, hash: string): Promise<boolean>;
  digestApiKey(key: string): string;
  /** What is stored of a session token: a digest, distinct from any API key's. */
  digestSessionToken(token: string): string;
  /**
   * The try-it console's API key of a session, derived from the session's token: the browser
   * presents the token on every page, so the key can be shown again without ever being stored.
   */
  deriveConsoleKey(sessionToken: string): { readonly key: string; readonly prefix: string };
}
