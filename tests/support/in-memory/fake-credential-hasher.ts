import type { CredentialHasher } from '../../../src/core/ports/credential-hasher';

/** Deterministic and fast; verifyPassword really compares the password with the hash. */
export class FakeCredentialHasher implements CredentialHasher {
  async hashPassword(password: string): Promise<string> {
    return `hashed(${password})`;
  }

  async verifyPassword(password: string, hash: string): Promise<boolean> {
    return hash === `hashed(${password})`;
  }

  digestApiKey(key: string): string {
    return `digest(${key})`;
  }
}
