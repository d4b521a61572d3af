import { createHash, createHmac } from 'node:crypto';
import type { CredentialHasher, PasswordCheck, PresentedPassword } from '../../core/ports/credential-hasher';
import type { PasswordWorkTurn } from '../../core/ports/password-work';
import type { PasswordPool } from '../passwords/password-pool';
import { type ScryptCost, SHIPPED_SCRYPT_COST } from '../passwords/scrypt-hashing';
import { API_KEY_PREFIX_LENGTH } from './random-id-generator';

/**
 * Passwords hashed with scrypt on the password work's pool (scrypt-hashing.ts says how), API keys
 * and session tokens digested here: they are random, so one SHA-256 is all they need.
 */
export class ScryptCredentialHasher implements CredentialHasher {
  /** `current`: what a new hash costs, and below which a stored one is outdated. */
  constructor(
    private readonly pool: PasswordPool,
    private readonly current: ScryptCost = SHIPPED_SCRYPT_COST,
  ) {}

  hashPassword(normalised: string, turn: PasswordWorkTurn): Promise<string> {
    return this.pool.run({ kind: 'hash', normalised, cost: this.current }, turn);
  }

  verifyPassword(password: PresentedPassword, stored: string, turn: PasswordWorkTurn): Promise<PasswordCheck> {
    return this.pool.run({ kind: 'verify', presented: password, stored, current: this.current }, turn);
  }

  digestApiKey(key: string): string {
    return createHash('sha256').update(key).digest('hex');
  }

  // A label in the digest keeps a session token's digest from ever equalling an API key's.
  digestSessionToken(token: string): string {
    return createHash('sha256').update(`session:${token}`).digest('hex');
  }

  /** HMAC-SHA256 keyed by the 256-bit session token: as unguessable as a random key, and one-way. */
  deriveConsoleKey(sessionToken: string): { key: string; prefix: string } {
    const key = `tns_${createHmac('sha256', sessionToken).update('try-it console key').digest('base64url')}`;
    return { key, prefix: key.slice(0, API_KEY_PREFIX_LENGTH) };
  }
}
