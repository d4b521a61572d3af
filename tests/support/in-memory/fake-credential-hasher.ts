import { createHash } from 'node:crypto';
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

  digestSessionToken(token: string): string {
    return `session-digest(${token})`;
  }

  /** Deterministic and well-formed (`tns_` and 43 base64url characters), as the real derivation. */
  deriveConsoleKey(sessionToken: string): { key: string; prefix: string } {
    const key = `tns_${createHash('sha256').update(`console:${sessionToken}`).digest('base64url')}`;
    return { key, prefix: key.slice(0, 12) };
  }
}
