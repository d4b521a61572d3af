// scrypt itself, run on a thread of the password work's pool (password-thread.ts): synchronous
// there, so that it takes that thread alone and never a thread of libuv's pool, which the rest of
// the process shares.
import { randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';
import type { PasswordCheck, PresentedPassword } from '../../core/ports/credential-hasher';

export interface ScryptCost {
  readonly N: number;
  readonly r: number;
  readonly p: number;
}

/**
 * OWASP's scrypt table gives equivalent settings; N=2^15, r=8, p=3 is the one that keeps 32 MiB a
 * hash (128·N·r; p runs its lanes one after another), where N=2^17, p=1 would need 128 MiB a hash,
 * on each of the pool's threads. Its cost: p times one lane's time (docs/performance.md, "Sign-in").
 */
export const SHIPPED_SCRYPT_COST: ScryptCost = { N: 2 ** 15, r: 8, p: 3 };
const MAX_MEMORY = 64 * 1024 * 1024;
const KEY_LENGTH = 32;
/** `scrypt2`: of the normalised password. `scrypt`, the earlier scheme: of the password as typed. */
const SCHEME = 'scrypt2';
const TYPED_SCHEME = 'scrypt';

function scrypt(password: string, salt: Buffer, cost: ScryptCost): Buffer {
  return scryptSync(password, salt, KEY_LENGTH, { ...cost, maxmem: MAX_MEMORY });
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

/** Stored as `scrypt2$N$r$p$salt$hash`: a hash keeps its parameters, so they can be raised later. */
export function hashPassword(normalised: string, cost: ScryptCost): string {
  const salt = randomBytes(16);
  const hash = scrypt(normalised, salt, cost);
  return [SCHEME, cost.N, cost.r, cost.p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

/** Whether the password is the one `stored` holds; `current`: below it, a stored hash is outdated. */
export function verifyPassword(password: PresentedPassword, stored: string, current: ScryptCost): PasswordCheck {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  const parameters = { N: Number(n), r: Number(r), p: Number(p) };
  if ((scheme !== SCHEME && scheme !== TYPED_SCHEME) || !salt || !hash) return { matches: false, outdated: true };
  const expected = Buffer.from(hash, 'base64url');
  const actual = scrypt(
    scheme === SCHEME ? password.normalised : password.typed,
    Buffer.from(salt, 'base64url'),
    parameters,
  );
  const outdated =
    scheme !== SCHEME || parameters.N < current.N || parameters.r < current.r || parameters.p < current.p;
  // A weaker hash is quicker to check than a current one, and so than the dummy hash an unknown
  // email is checked against: the lanes it lacks are run too (on a throwaway salt), so that how
  // long a wrong password takes does not tell an account not yet hashed again from no account.
  const lacking = missingLanes(parameters, current);
  if (lacking > 0) scrypt(password.normalised, randomBytes(16), { ...current, p: lacking });
  return { matches: actual.length === expected.length && timingSafeEqual(actual, expected), outdated };
}
