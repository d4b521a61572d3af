// The stored password hash: its scheme says what it holds (the password normalised, or as typed
// before that), and its parameters say whether it is as strong as new ones. Run here on the test's
// thread; the service runs the same functions on its password work's threads.
import {
  hashPassword,
  missingLanes,
  SHIPPED_SCRYPT_COST,
  verifyPassword,
} from '../../../src/infrastructure/passwords/scrypt-hashing';
import { earlierPasswordHash as earlierHash } from '../../support/builders/earlier-password-hash';

const TYPED = 'quiet lantern\u200b over the fjord';
const presented = { typed: TYPED, normalised: 'quiet lantern over the fjord' };
const verify = (password: typeof presented, stored: string) => verifyPassword(password, stored, SHIPPED_SCRYPT_COST);

it("hashes the normalised password with OWASP's N=2^15, r=8, p=3, and verifies it", () => {
  const hash = hashPassword(presented.normalised, SHIPPED_SCRYPT_COST);
  expect(hash).toMatch(/^scrypt2\$32768\$8\$3\$[\w-]{22}\$[\w-]{43}$/);
  expect(verify(presented, hash)).toEqual({ matches: true, outdated: false });
  expect(verify({ typed: 'x', normalised: 'quiet lantern over the fjorD' }, hash)).toEqual({
    matches: false,
    outdated: false,
  });
});

it('verifies an earlier hash against the password as typed, and says it is outdated', () => {
  const hash = earlierHash(TYPED);
  expect(verify(presented, hash)).toEqual({ matches: true, outdated: true });
  expect(verify({ typed: presented.normalised, normalised: presented.normalised }, hash).matches).toBe(false);
});

it('says a hash of the current scheme with weaker parameters is outdated', () => {
  const hash = earlierHash(presented.normalised, { N: 2 ** 15, r: 8, p: 1 }, 'scrypt2');
  expect(verify(presented, hash)).toEqual({ matches: true, outdated: true });
});

it.each(['', 'bcrypt$x', 'scrypt2$32768$8$3$$', 'plain text'])('matches nothing against %j', (stored) => {
  expect(verify(presented, stored).matches).toBe(false);
});

it.each([
  ['an earlier hash (p=1)', { N: 2 ** 15, r: 8, p: 1 }, 2],
  ["a hash of today's parameters", { N: 2 ** 15, r: 8, p: 3 }, 0],
  ['a hash of another N', { N: 2 ** 14, r: 8, p: 1 }, 3],
])("pads the check of %s to today's lanes, so its time does not stand out", (_label, parameters, lanes) => {
  expect(missingLanes(parameters)).toBe(lanes);
});
