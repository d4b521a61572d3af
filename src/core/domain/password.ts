import type { CommonPasswords } from '../ports/common-passwords';
import type { PasswordWorkTurn } from '../ports/password-work';
import { BlankPassword, CommonPassword, ShortPassword, type UnacceptablePassword } from './errors';

/**
 * At least 15 characters: NIST SP 800-63B-4's minimum for a password that is the only factor, as
 * here. Counted in Unicode code points of the normalised password, as the standard counts them.
 */
export const MIN_PASSWORD_LENGTH = 15;
/** The upper bound keeps the slow hash from being an attack vector (NIST asks for at least 64). */
export const MAX_PASSWORD_LENGTH = 256;

/**
 * The password as it is checked and hashed: Unicode NFKC (one spelling for what looks and types
 * alike: composed or decomposed accents, full-width letters) with format characters (zero-width
 * spaces and joiners, direction marks: category Cf) removed, since they are invisible and change
 * nothing for the person typing. NIST SP 800-63B-4 asks for a normalisation before hashing.
 */
export function normalisePassword(password: string): string {
  return password.normalize('NFKC').replace(/\p{Cf}/gu, '');
}

/**
 * The words a guesser knows of an account (NIST SP 800-63B-4: the service's name, the user name
 * and what is derived from them), for `refusalOf`'s `context`.
 */
export function passwordContext(normalisedEmail: string): string[] {
  const [mailbox = ''] = normalisedEmail.split('@');
  return ['time navigation', 'timenavigation', 'time-navigation', normalisedEmail, mailbox];
}

/**
 * The content rules of a password: not white space alone, at least MIN_PASSWORD_LENGTH characters
 * without the white space around it, and not one a guesser tries first (NIST SP 800-63B-4
 * 3.1.1.2): a breached password, or one made from such words, repeats, sequences, keyboard runs or
 * dates, or from `context` (the account's email). No composition rules: NIST advises against them.
 * Null when the password passes; else why it does not. The last rule is the costly one, run in its
 * `turn` in the password work's pool; the others are checked first, for nothing.
 */
export async function refusalOf(
  password: string,
  common: CommonPasswords,
  context: readonly string[],
  turn: PasswordWorkTurn,
): Promise<UnacceptablePassword | null> {
  const meaningful = normalisePassword(password).trim();
  if (meaningful === '') return new BlankPassword();
  if ([...meaningful].length < MIN_PASSWORD_LENGTH) return new ShortPassword(MIN_PASSWORD_LENGTH);
  if (await common.matches(meaningful, context, turn)) return new CommonPassword();
  return null;
}

/** Refuses a new password the rules refuse (its raw length is checked with the request's shape). */
export async function checkNewPassword(
  password: string,
  common: CommonPasswords,
  context: readonly string[],
  turn: PasswordWorkTurn,
): Promise<void> {
  const refusal = await refusalOf(password, common, context, turn);
  if (refusal) throw refusal;
}
