// The password work's real threads: each task runs on a worker thread of its own, never on libuv's
// pool, and a task that fails does not take its thread with it.
import { PasswordThreads } from '../../../src/infrastructure/passwords/password-threads';
import { verifyPassword } from '../../../src/infrastructure/passwords/scrypt-hashing';
import { holdLibuvPool } from '../../support/passwords/held-libuv-pool';

const cost = { N: 1024, r: 8, p: 1 };
const threads = new PasswordThreads(1);
afterAll(() => threads.close());

it("hashes, verifies and checks strength while every thread of libuv's pool is held", async () => {
  const held = holdLibuvPool();
  try {
    const hash = String(await threads.run({ kind: 'hash', normalised: 'a quiet lantern over the fjord', cost }));
    expect(hash).toMatch(/^scrypt2\$1024\$8\$1\$/);
    const presented = { typed: 'a quiet lantern over the fjord', normalised: 'a quiet lantern over the fjord' };
    await expect(threads.run({ kind: 'verify', presented, stored: hash, current: cost })).resolves.toEqual({
      matches: true,
      outdated: false,
    });
    const strength = (password: string) => threads.run({ kind: 'strength', password, context: [] });
    await expect(strength('passwordpassword')).resolves.toBe(true);
    await expect(strength('a quiet lantern over the fjord')).resolves.toBe(false);
    // What the thread made is what scrypt here makes of it.
    expect(verifyPassword(presented, hash, cost).matches).toBe(true);
  } finally {
    await held.release();
  }
});

it('passes on what a task failed with, and the thread serves the next one', async () => {
  const impossible = { N: 1000, r: 8, p: 1 }; // N must be a power of two
  await expect(threads.run({ kind: 'hash', normalised: 'x', cost: impossible })).rejects.toThrow(
    /^password work failed: /,
  );
  await expect(threads.run({ kind: 'strength', password: 'passwordpassword', context: [] })).resolves.toBe(true);
});
