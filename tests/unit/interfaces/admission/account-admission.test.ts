import { AccountAdmission } from '../../../../src/interfaces/http/admission/account-admission';

describe('AccountAdmission', () => {
  const limits = { running: 2, queued: 2 };

  it('runs the limit at once, queues the next in arrival order, refuses the rest', () => {
    const admission = new AccountAdmission<string>(limits);
    expect(['a1', 'a2', 'a3', 'a4', 'a5'].map((holder) => admission.enter('acc_a', holder))).toEqual([
      'running',
      'running',
      'queued',
      'queued',
      'refused',
    ]);
    expect(admission.loadOf('acc_a')).toEqual({ running: 2, queued: 2 });
    // The oldest waiting one takes the place of one done.
    expect(admission.leave('a2')).toBe('a3');
    expect(admission.leave('a1')).toBe('a4');
    expect(admission.leave('a3')).toBeNull();
    expect(admission.leave('a4')).toBeNull();
    expect(admission.loadOf('acc_a')).toEqual({ running: 0, queued: 0 });
  });

  it('counts each account on its own: a busy one leaves the others their share', () => {
    const admission = new AccountAdmission<string>(limits);
    for (const holder of ['a1', 'a2', 'a3', 'a4']) admission.enter('acc_a', holder);
    expect(admission.enter('acc_a', 'a5')).toBe('refused');
    expect(admission.enter('acc_b', 'b1')).toBe('running');
  });

  it('lets a waiting request leave the queue without taking anyone place', () => {
    const admission = new AccountAdmission<string>(limits);
    for (const holder of ['a1', 'a2', 'a3', 'a4']) admission.enter('acc_a', holder);
    expect(admission.leave('a3')).toBeNull();
    expect(admission.loadOf('acc_a')).toEqual({ running: 2, queued: 1 });
    expect(admission.leave('a1')).toBe('a4');
    // A holder that is not in (left already) changes nothing.
    expect(admission.leave('a3')).toBeNull();
    expect(admission.loadOf('acc_a')).toEqual({ running: 2, queued: 0 });
  });

  it("frees a gone worker's requests, running and waiting, and admits the others' in their place", () => {
    const admission = new AccountAdmission<string>(limits);
    for (const holder of ['1/a', '2/b', '1/c', '2/d']) admission.enter('acc_a', holder);
    expect(admission.leaveAll((holder) => holder.startsWith('1/'))).toEqual(['2/d']);
    expect(admission.loadOf('acc_a')).toEqual({ running: 2, queued: 0 });
  });

  it('needs at least one running and no negative queue', () => {
    expect(() => new AccountAdmission({ running: 0, queued: 1 })).toThrow(RangeError);
    expect(() => new AccountAdmission({ running: 1, queued: -1 })).toThrow(RangeError);
    expect(new AccountAdmission<string>({ running: 1, queued: 0 }).enter('acc', 'x')).toBe('running');
  });
});

describe("AccountAdmission's pace", () => {
  /** A clock the test moves: the pace is read from it, in milliseconds. */
  const clock = () => {
    const time = { now: 1_000 };
    return Object.assign(time, { read: () => time.now });
  };

  it("starts an account's first `running` at once, then one every second ÷ startsPerSecond", () => {
    const time = clock();
    // 100 a second: one every 10 ms, past the first 4.
    const admission = new AccountAdmission<string>({ running: 4, queued: 10, startsPerSecond: 100 }, time.read);
    const delays = ['a1', 'a2', 'a3', 'a4'].map((holder) => {
      admission.enter('acc_a', holder);
      return admission.startDelay(holder);
    });
    expect(delays).toEqual([0, 0, 0, 0]);
    admission.enter('acc_a', 'a5');
    admission.enter('acc_a', 'a6');
    // Both done at once: the next two may run, each at its own time.
    expect(admission.leave('a1')).toBe('a5');
    expect(admission.startDelay('a5')).toBe(10);
    expect(admission.leave('a2')).toBe('a6');
    expect(admission.startDelay('a6')).toBe(20);
    // Another account is paced on its own.
    admission.enter('acc_b', 'b1');
    expect(admission.startDelay('b1')).toBe(0);
  });

  it('counts a request by its cost, never more than a second of it', () => {
    const time = clock();
    const admission = new AccountAdmission<string>({ running: 1, queued: 10, startsPerSecond: 100 }, time.read);
    admission.enter('acc_a', 'page', 5);
    expect(admission.startDelay('page')).toBe(0);
    admission.enter('acc_a', 'next');
    expect(admission.leave('page')).toBe('next');
    // The page of 500 counted as five: the next starts 50 ms after it.
    expect(admission.startDelay('next')).toBe(50);
    time.now += 50;
    admission.enter('acc_a', 'huge', 1_000);
    expect(admission.leave('next')).toBe('huge');
    expect(admission.startDelay('huge')).toBe(10);
    time.now += 10;
    admission.enter('acc_a', 'after');
    expect(admission.leave('huge')).toBe('after');
    // The huge one moved the pace on by a second's quota (100 × 10 ms), not by 1,000 of them.
    expect(admission.startDelay('after')).toBe(1_000);
  });

  it('gives a request that leaves before its start its turn back', () => {
    const time = clock();
    const admission = new AccountAdmission<string>({ running: 1, queued: 10, startsPerSecond: 10 }, time.read);
    admission.enter('acc_a', 'a1');
    expect(admission.startDelay('a1')).toBe(0);
    admission.enter('acc_a', 'gone');
    expect(admission.leave('a1')).toBe('gone');
    expect(admission.startDelay('gone')).toBe(100);
    // Its client went away 30 ms into its wait: it never started.
    time.now += 30;
    expect(admission.leave('gone')).toBeNull();
    admission.enter('acc_a', 'next');
    // The next starts when the gone one would have, not a pace later.
    expect(admission.startDelay('next')).toBe(70);
  });

  it('lets the pace catch up with the clock: requests that come no faster than it are not held', () => {
    const time = clock();
    const admission = new AccountAdmission<string>({ running: 1, queued: 10, startsPerSecond: 100 }, time.read);
    admission.enter('acc_a', 'a1');
    admission.enter('acc_a', 'a2');
    expect(admission.startDelay('a1')).toBe(0);
    time.now += 25;
    expect(admission.leave('a1')).toBe('a2');
    expect(admission.startDelay('a2')).toBe(0);
  });

  it('paces requests sent one after another too, until the pace has caught up with the clock', () => {
    const time = clock();
    const paced = new AccountAdmission<string>({ running: 1, queued: 1, startsPerSecond: 10 }, time.read);
    paced.enter('acc_a', 'a1');
    expect(paced.startDelay('a1')).toBe(0);
    paced.leave('a1');
    // Done, and the next sent at once: it waits its pace all the same.
    paced.enter('acc_a', 'a2');
    expect(paced.startDelay('a2')).toBe(100);
    paced.leave('a2');
    time.now += 200;
    // Caught up: the next starts at once.
    paced.enter('acc_a', 'a3');
    expect(paced.startDelay('a3')).toBe(0);
  });

  it('forgets the paces that have caught up with the clock, every thousand requests', () => {
    const time = clock();
    const paced = new AccountAdmission<string>({ running: 1, queued: 1, startsPerSecond: 10 }, time.read);
    for (let n = 0; n < 999; n++) {
      paced.enter(`acc_${n}`, `r${n}`);
      paced.startDelay(`r${n}`);
      paced.leave(`r${n}`);
    }
    expect(paced.pacedAccounts).toBe(999);
    time.now += 100;
    paced.enter('acc_last', 'last');
    paced.startDelay('last');
    expect(paced.pacedAccounts).toBe(1);
  });

  it('keeps no pace without startsPerSecond, and refuses a fraction of one', () => {
    const time = clock();
    const unpaced = new AccountAdmission<string>({ running: 1, queued: 1 }, time.read);
    unpaced.enter('acc_a', 'a1');
    unpaced.enter('acc_a', 'a2');
    unpaced.startDelay('a1');
    expect(unpaced.leave('a1')).toBe('a2');
    expect(unpaced.startDelay('a2')).toBe(0);
    expect(unpaced.pacedAccounts).toBe(0);
    expect(() => new AccountAdmission({ running: 1, queued: 1, startsPerSecond: 0.5 })).toThrow(RangeError);
  });
});
