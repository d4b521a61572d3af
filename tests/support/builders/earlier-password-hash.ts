import { randomBytes, scryptSync } from 'node:crypto';

/**
 * A password hash as the service made them before passwords were normalised (scheme `scrypt`, of
 * the password as typed, with p=1), or of another scheme and parameters: what accounts opened
 * then still hold until their next sign-in.
 */
export function earlierPasswordHash(
  password: string,
  parameters = { N: 2 ** 15, r: 8, p: 1 },
  scheme = 'scrypt',
): string {
  const salt = randomBytes(16);
  const hash = scryptSync(password, salt, 32, { ...parameters, maxmem: 64 * 1024 * 1024 });
  const { N, r, p } = parameters;
  return [scheme, N, r, p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}
