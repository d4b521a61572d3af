// The password work's real threads: each task runs on a worker thread of its own, never on libuv's
// pool, below the API in the host's scheduler, and a task that fails does not take its thread with it.
import { readdirSync, readFileSync } from 'node:fs';
import { constants } from 'node:os';
import { createPasswordPool } from '../../../src/infrastructure/passwords/password-pool';
import { PASSWORD_THREAD_NICENESS } from '../../../src/infrastructure/passwords/password-thread';
import { PasswordThreads, type ThreadStart } from '../../../src/infrastructure/passwords/password-threads';
import { verifyPassword } from '../../../src/infrastructure/passwords/scrypt-hashing';
import { holdLibuvPool } from '../../support/passwords/held-libuv-pool';

const cost = { N: 1024, r: 8, p: 1 };
const TURN = { clientAddress: '203.0.113.7', knownDevice: false };
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

/** The nice value of each thread of this process, by thread id (Linux: the 19th field of its stat). */
function niceValues(): Map<number, number> {
  const values = new Map<number, number>();
  for (const id of readdirSync('/proc/self/task')) {
    const stat = readFileSync(`/proc/self/task/${id}/stat`, 'latin1');
    // Counted from after the command's name, which is in parentheses and may hold spaces.
    values.set(Number(id), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
  }
  return values;
}

it("runs each thread below the process's priority, and the rest of the process as it was", async () => {
  const own = niceValues().get(process.pid) ?? NaN;
  const below = Math.min(constants.priority.PRIORITY_LOW, own + PASSWORD_THREAD_NICENESS);
  const lowered = () => [...niceValues().values()].filter((nice) => nice === below).length;
  const before = lowered();
  const starts: ThreadStart[] = [];
  const two = new PasswordThreads(2, (start) => starts.push(start));
  try {
    // Two tasks at once start both threads.
    const strength = () => two.run({ kind: 'strength', password: 'passwordpassword', context: [] });
    await Promise.all([strength(), strength()]);
    expect(starts).toEqual([{ lowered: true }, { lowered: true }]);
    expect(lowered()).toBe(before + 2);
    expect(niceValues().get(process.pid)).toBe(own);
  } finally {
    await two.close();
  }
});

it('says once, as its threads start, that the pool runs below the API', async () => {
  const lines: { level: string; fields: object; message: string }[] = [];
  const log = {
    info: (fields: object, message: string) => lines.push({ level: 'info', fields, message }),
    warn: (fields: object, message: string) => lines.push({ level: 'warn', fields, message }),
  };
  const pool = createPasswordPool({ threads: 2, queued: 2, warm: true, log });
  try {
    // Work on both threads at once: each has started, and said so, by the time it answers.
    const strength = () => pool.run({ kind: 'strength', password: 'passwordpassword', context: [] }, TURN);
    await Promise.all([strength(), strength()]);
    expect(lines).toEqual([
      {
        level: 'info',
        fields: { niceness_above_api: PASSWORD_THREAD_NICENESS },
        message: 'password work threads run below the API',
      },
    ]);
  } finally {
    await pool.close();
  }
});
