import { createHash } from 'node:crypto';
import type { CredentialHasher, PasswordCheck, PresentedPassword } from '../../../src/core/ports/credential-hasher';
import type { PasswordWorkTurn } from '../../../src/core/ports/password-work';

/**
 * Deterministic and fast; verifyPassword really compares the password with the hash. A hash made
 * as the real one made them before normalising (`typedHash`) holds the password as typed, and is
 * outdated, as the real hasher's are. The turns the password work was asked in are kept.
 */
export class FakeCredentialHasher implements CredentialHasher {
  readonly turns: PasswordWorkTurn[] = [];

  async hashPassword(normalised: string, turn: PasswordWorkTurn): Promise<string> {
    this.turns.push(turn);
    return `hashed(${normalised})`;
  }

  async verifyPassword(password: PresentedPassword, hash: string, turn: PasswordWorkTurn): Promise<PasswordCheck> {
    this.turns.push(turn);
    if (hash.startsWith('hashed-as-typed(')) return { matches: hash === typedHash(password.typed), outdated: true };
    return { matches: hash === `hashed(${password.normalised})`, outdated: false };
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

/** A hash of the password as typed, as accounts signed up before passwords were normalised hold it. */
export function typedHash(typed: string): string {
  return `hashed-as-typed(${typed})`;
}
