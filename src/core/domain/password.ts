import type { CommonPasswords } from '../ports/common-passwords';
import { BlankPassword, CommonPassword, ShortPassword } from './errors';

/** At least 8 (NIST SP 800-63B); the upper bound keeps the slow hash from being an attack vector. */
export const MIN_PASSWORD_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 256;

/**
 * The content rules of a new password (its raw length is checked with the request's shape): not
 * white space alone, long enough without the white space around it, and not on a list of common
 * passwords, which a guesser tries first (NIST SP 800-63B 3.1.1.2). Case and surrounding white space
 * do not make a password another one, so they count neither for its length nor against the list.
 */
export function checkNewPassword(password: string, common: CommonPasswords): void {
  const meaningful = password.trim();
  if (meaningful === '') throw new BlankPassword();
  if (meaningful.length < MIN_PASSWORD_LENGTH) throw new ShortPassword(MIN_PASSWORD_LENGTH);
  if (common.includes(meaningful.toLowerCase())) throw new CommonPassword();
}
