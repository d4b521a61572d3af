// The instance's fair share between accounts: the least loaded account's request next, weighted, bounded.
import { FairShare } from '../../../../src/interfaces/http/admission/fair-share';

/** A share whose changes are recorded in order: who started, who was shed. */
function shareOf(running: number, queued: number, heavyRunning?: number) {
  const share = new FairShare<string>({ running, queued, ...(heavyRunning !== undefined && { heavyRunning }) });
  const started: string[] = [];
  const shed: string[] = [];
  const record = (change: { started: readonly string[]; shed: readonly string[] }) => {
    started.push(...change.started);
    shed.push(...change.shed);
  };
  return {
    share,
    started,
    shed,
    enter: (account: string, holder: string, weight = 1) => record(share.enter(account, holder, weight)),
    leave: (holder: string) => record({ started: share.leave(holder), shed: [] }),
  };
}

it('runs up to its weight at once, and the rest wait', () => {
  const { enter, started, share } = shareOf(3, 10);
  enter('a', 'a1');
  enter('a', 'a2', 2);
  enter('b', 'b1');
  expect(started).toEqual(['a1', 'a2']);
  expect(share.load).toEqual({ runningWeight: 3, queued: 1 });
});

it('serves an account with one request waiting next, however many other accounts are busy', () => {
  const { enter, leave, started } = shareOf(20, 1000);
  // Twenty busy accounts: one of each runs, and each has four more waiting.
  for (let r = 0; r < 5; r++) for (let n = 0; n < 20; n++) enter(`busy${n}`, `busy${n}/${r}`);
  expect(started).toHaveLength(20);
  enter('quiet', 'quiet/0');
  // One busy account's request ends, leaving it nothing running, like the quiet one, but four waiting.
  leave('busy7/0');
  expect(started[20]).toBe('quiet/0');
});

it('makes a heavy account wait behind its own work: the account with less running goes first', () => {
  const { enter, leave, started } = shareOf(6, 1000);
  for (let r = 0; r < 4; r++) enter('heavy', `heavy/${r}`, 5);
  for (let r = 0; r < 4; r++) enter('light', `light/${r}`);
  // heavy/0 runs (5 of 6); light/0 fits beside it; heavy's next waits behind its own, and is first in line.
  expect(started).toEqual(['heavy/0', 'light/0']);
  leave('light/0');
  // light has nothing running, heavy 5: light's next goes first.
  expect(started.at(-1)).toBe('light/1');
  leave('heavy/0');
  leave('light/1');
  // Both have nothing running now: the older request, heavy/1, goes first, and holds the rest until it fits.
  expect(started.slice(3)).toEqual(['heavy/1', 'light/2']);
});

it('runs ordinary requests up to the whole bound, and a heavier one only within its own', () => {
  const { enter, leave, started } = shareOf(6, 10, 3);
  for (let n = 1; n <= 4; n++) enter('a', `a${n}`);
  enter('b', 'b1', 2);
  enter('c', 'c1');
  // Four ordinary ones run (4 of 6); b1 (2) would pass 3, so it waits; c1 fits beside it (3 - 2).
  expect(started).toEqual(['a1', 'a2', 'a3', 'a4', 'c1']);
  for (const holder of ['a1', 'a2', 'a3']) leave(holder);
  expect(started).toHaveLength(5); // a4 and c1 run: 2 + 2 would pass 3
  leave('a4');
  expect(started.at(-1)).toBe('b1');
});

it('keeps a heavier request beside a waiting head within its own bound', () => {
  const { enter, started } = shareOf(10, 10, 6);
  for (let n = 1; n <= 5; n++) enter('a', `a${n}`);
  enter('head', 'head', 2);
  // The head waits (5 + 2 > 6) and leaves room beside it for 2 more weight; m (2) would pass 6, l (1) not.
  enter('m', 'm1', 2);
  enter('l', 'l1');
  expect(started.slice(5)).toEqual(['l1']);
});

it('refuses a bound of heavier work above the bound of all', () => {
  expect(() => new FairShare({ running: 5, heavyRunning: 6, queued: 0 })).toThrow(
    /heavyRunning must be at most running/,
  );
});

it('runs a request heavier than the whole share alone', () => {
  const { enter, leave, started } = shareOf(4, 10);
  enter('a', 'big', 50);
  enter('b', 'small');
  expect(started).toEqual(['big']);
  leave('big');
  expect(started).toEqual(['big', 'small']);
});

it('holds what would take the room a heavy request waits for', () => {
  const { enter, leave, started } = shareOf(4, 10);
  enter('a', 'a1', 3);
  enter('b', 'b1', 3); // waits: 3 + 3 > 4
  enter('c', 'c1', 2); // c has nothing running either, and came later: behind b1, and 2 would take b1's room
  expect(started).toEqual(['a1']);
  leave('a1');
  expect(started).toEqual(['a1', 'b1']);
  leave('b1');
  expect(started).toEqual(['a1', 'b1', 'c1']);
});

it('runs what fits beside a waiting heavy request in the room it leaves, never delaying it', () => {
  const { enter, leave, started, share } = shareOf(10, 100);
  // A crowd account's 100-name check runs (9 of 10); another's waits for room (9 more).
  enter('crowd1', 'check1', 9);
  enter('crowd2', 'check2', 9);
  // A quiet account's read fits in the 1 that check2 leaves: it runs now, not after check1.
  enter('quiet', 'read1');
  expect(started).toEqual(['check1', 'read1']);
  // A second read would take check2's room: it waits.
  enter('other', 'read2');
  expect(started).toEqual(['check1', 'read1']);
  // check1 ends while read1 still runs: check2 fits beside read1 at once.
  leave('check1');
  expect(started).toEqual(['check1', 'read1', 'check2']);
  expect(share.load).toEqual({ runningWeight: 10, queued: 1 });
  leave('read1');
  expect(started.at(-1)).toBe('read2');
});

it('never runs anything beside a request heavier than the whole share', () => {
  const { enter, leave, started } = shareOf(4, 10);
  enter('a', 'a1', 1);
  enter('b', 'big', 50);
  enter('c', 'c1', 1);
  expect(started).toEqual(['a1']);
  leave('a1');
  expect(started).toEqual(['a1', 'big']);
  leave('big');
  expect(started).toEqual(['a1', 'big', 'c1']);
});

it('sheds the newest request of the account with the most waiting when the queue is full', () => {
  const { enter, started, shed, share } = shareOf(1, 3);
  enter('noisy', 'n0');
  enter('noisy', 'n1');
  enter('noisy', 'n2');
  enter('other', 'o1');
  expect(started).toEqual(['n0']);
  expect(share.load.queued).toBe(3);
  // Full: noisy has two waiting, quiet none; noisy's newest gives its place.
  enter('quiet', 'q1');
  expect(shed).toEqual(['n2']);
  expect(share.load.queued).toBe(3);
  // Full again, and no account has more waiting than `other` would: the arriving one is shed.
  enter('other', 'o2');
  expect(shed).toEqual(['n2', 'o2']);
});

it('sheds everything that would wait when none may', () => {
  const { enter, started, shed } = shareOf(1, 0);
  enter('a', 'a1');
  enter('b', 'b1');
  expect([started, shed]).toEqual([['a1'], ['b1']]);
});

it('lets a waiting request leave', () => {
  const { enter, leave, started, share } = shareOf(1, 10);
  enter('a', 'a1');
  enter('b', 'b1');
  enter('c', 'c1');
  leave('b1');
  expect(share.load.queued).toBe(1);
  leave('a1');
  expect(started).toEqual(['a1', 'c1']);
  expect(share.load).toEqual({ runningWeight: 1, queued: 0 });
});

it('orders by the work running and waiting now, not by what ran before', () => {
  const { enter, leave, started } = shareOf(1, 10);
  // a has had a hundred requests served; b none.
  for (let r = 0; r < 100; r++) {
    enter('a', `a${r}`);
    leave(`a${r}`);
  }
  enter('c', 'c1');
  enter('a', 'a100');
  enter('b', 'b1');
  leave('c1');
  // Neither has anything running or more than one waiting: the older request goes first.
  expect(started.slice(-2)).toEqual(['c1', 'a100']);
});

it('refuses limits that are not whole numbers, or no work at all', () => {
  expect(() => new FairShare({ running: 0, queued: 1 })).toThrow(RangeError);
  expect(() => new FairShare({ running: 1.5, queued: 1 })).toThrow(RangeError);
  expect(() => new FairShare({ running: 1, queued: -1 })).toThrow(RangeError);
});
