import { createHash, createHmac, randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { CredentialHasher, PasswordCheck, PresentedPassword } from '../../core/ports/credential-hasher';
import { API_KEY_PREFIX_LENGTH } from './random-id-generator';

export interface ScryptCost {
  readonly N: number;
  readonly r: number;
  readonly p: number;
}

/**
 * OWASP's scrypt table gives equivalent settings; N=2^15, r=8, p=3 is the one that keeps 32 MiB a
 * hash (128·N·r; p runs its lanes one after another), where N=2^17, p=1 would need 128 MiB, beyond
 * the process's memory budget with the thread pool's four hashes at once. Its cost: p times one
 * lane's time (docs/performance.md, "Sign-in").
 */
export const SHIPPED_SCRYPT_COST: ScryptCost = { N: 2 ** 15, r: 8, p: 3 };
const MAX_MEMORY = 64 * 1024 * 1024;
const KEY_LENGTH = 32;
/** `scrypt2`: of the normalised password. `scrypt`, the earlier scheme: of the password as typed. */
const SCHEME = 'scrypt2';
const TYPED_SCHEME = 'scrypt';

function scryptAsync(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

/**
 * The lanes of today's parameters that a hash's own did not run: the p lacking for the same N and
 * r, or all of today's for another N or r (their cost differs in kind; running all of them errs on
 * the slow side).
 */
export function missingLanes(parameters: ScryptCost, current: ScryptCost = SHIPPED_SCRYPT_COST): number {
  if (parameters.N === current.N && parameters.r === current.r) return Math.max(0, current.p - parameters.p);
  return current.p;
}

export class ScryptCredentialHasher implements CredentialHasher {
  /** `current`: what a new hash costs, and below which a stored one is outdated. */
  constructor(private readonly current: ScryptCost = SHIPPED_SCRYPT_COST) {}

  /** Stored as `scrypt2$N$r$p$salt$hash`: a hash keeps its parameters, so they can be raised later. */
  async hashPassword(normalised: string): Promise<string> {
    const salt = randomBytes(16);
    const hash = await scryptAsync(normalised, salt, { ...this.current, maxmem: MAX_MEMORY });
    const { N, r, p } = this.current;
    return [SCHEME, N, r, p, salt.toString('base64url'), hash.toString('base64url')].join('$');
  }

  async verifyPassword(password: PresentedPassword, stored: string): Promise<PasswordCheck> {
    const [scheme, n, r, p, salt, hash] = stored.split('$');
    const parameters = { N: Number(n), r: Number(r), p: Number(p) };
    if ((scheme !== SCHEME && scheme !== TYPED_SCHEME) || !salt || !hash) return { matches: false, outdated: true };
    const expected = Buffer.from(hash, 'base64url');
    const actual = await scryptAsync(
      scheme === SCHEME ? password.normalised : password.typed,
      Buffer.from(salt, 'base64url'),
      {
        ...parameters,
        maxmem: MAX_MEMORY,
      },
    );
    const outdated =
      scheme !== SCHEME ||
      parameters.N < this.current.N ||
      parameters.r < this.current.r ||
      parameters.p < this.current.p;
    // A weaker hash is quicker to check than a current one, and so than the dummy hash an unknown
    // email is checked against: the lanes it lacks are run too (on a throwaway salt), so that how
    // long a wrong password takes does not tell an account not yet hashed again from no account.
    const lacking = missingLanes(parameters, this.current);
    if (lacking > 0)
      await scryptAsync(password.normalised, randomBytes(16), { ...this.current, p: lacking, maxmem: MAX_MEMORY });
    return { matches: actual.length === expected.length && timingSafeEqual(actual, expected), outdated };
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
