/** Hashing of secrets: slow for passwords (guessable), a plain digest for random API keys. */
export interface CredentialHasher {
  hashPassword(password: string): Promise<string>;
  verifyPassword(password: string, hash: string): Promise<boolean>;
  digestApiKey(key: string): string;
}
