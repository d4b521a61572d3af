import { createHash, createHmac, randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { CredentialHasher } from '../../core/ports/credential-hasher';
import { API_KEY_PREFIX_LENGTH } from './random-id-generator';

// OWASP's scrypt baseline (N=2^17, r=8, p=1) costs ~128 MiB per hash; N=2^15 keeps sign-up bursts
// within the service's memory budget while staying far slower than any fast digest.
const PARAMETERS = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } as const;
const KEY_LENGTH = 32;

function scryptAsync(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

export class ScryptCredentialHasher implements CredentialHasher {
  /** Stored as `scrypt$N$r$p$salt$hash` so parameters can be raised later without breaking old hashes. */
  async hashPassword(password: string): Promise<string> {
    const salt = randomBytes(16);
    const hash = await scryptAsync(password, salt, PARAMETERS);
    const { N, r, p } = PARAMETERS;
    return ['scrypt', N, r, p, salt.toString('base64url'), hash.toString('base64url')].join('$');
  }

  async verifyPassword(password: string, stored: string): Promise<boolean> {
    const [scheme, n, r, p, salt, hash] = stored.split('$');
    if (scheme !== 'scrypt' || !salt || !hash) return false;
    const expected = Buffer.from(hash, 'base64url');
    const actual = await scryptAsync(password, Buffer.from(salt, 'base64url'), {
      N: Number(n),
      r: Number(r),
      p: Number(p),
      maxmem: PARAMETERS.maxmem,
    });
    return actual.length === expected.length && timingSafeEqual(actual, expected);
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
