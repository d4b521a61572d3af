// The stored password hash: its scheme says what it holds (the password normalised, or as typed
// before that), and its parameters say whether it is as strong as new ones.
import { missingLanes, ScryptCredentialHasher } from '../../../src/infrastructure/system/scrypt-credential-hasher';
import { earlierPasswordHash as earlierHash } from '../../support/builders/earlier-password-hash';

const hasher = new ScryptCredentialHasher();
const TYPED = 'quiet lantern\u200b over the fjord';
const presented = { typed: TYPED, normalised: 'quiet lantern over the fjord' };

it("hashes the normalised password with OWASP's N=2^15, r=8, p=3, and verifies it", async () => {
  const hash = await hasher.hashPassword(presented.normalised);
  expect(hash).toMatch(/^scrypt2\$32768\$8\$3\$[\w-]{22}\$[\w-]{43}$/);
  expect(await hasher.verifyPassword(presented, hash)).toEqual({ matches: true, outdated: false });
  expect(await hasher.verifyPassword({ typed: 'x', normalised: 'quiet lantern over the fjorD' }, hash)).toEqual({
    matches: false,
    outdated: false,
  });
});

it('verifies an earlier hash against the password as typed, and says it is outdated', async () => {
  const hash = earlierHash(TYPED);
  expect(await hasher.verifyPassword(presented, hash)).toEqual({ matches: true, outdated: true });
  expect(
    (await hasher.verifyPassword({ typed: presented.normalised, normalised: presented.normalised }, hash)).matches,
  ).toBe(false);
});

it('says a hash of the current scheme with weaker parameters is outdated', async () => {
  const hash = earlierHash(presented.normalised, { N: 2 ** 15, r: 8, p: 1 }, 'scrypt2');
  expect(await hasher.verifyPassword(presented, hash)).toEqual({ matches: true, outdated: true });
});

it.each(['', 'bcrypt$x', 'scrypt2$32768$8$3$$', 'plain text'])('matches nothing against %j', async (stored) => {
  expect((await hasher.verifyPassword(presented, stored)).matches).toBe(false);
});

it.each([
  ['an earlier hash (p=1)', { N: 2 ** 15, r: 8, p: 1 }, 2],
  ["a hash of today's parameters", { N: 2 ** 15, r: 8, p: 3 }, 0],
  ['a hash of another N', { N: 2 ** 14, r: 8, p: 1 }, 3],
])("pads the check of %s to today's lanes, so its time does not stand out", (_label, parameters, lanes) => {
  expect(missingLanes(parameters)).toBe(lanes);
});
