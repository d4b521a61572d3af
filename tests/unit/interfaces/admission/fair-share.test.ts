// The instance's fair share between accounts: start-time fair queuing, weighted, bounded.
import { FairShare } from '../../../../src/interfaces/http/admission/fair-share';

/** A share whose changes are recorded in order: who started, who was shed. */
function shareOf(running: number, queued: number) {
  const share = new FairShare<string>({ running, queued });
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
  const { enter, leave, started } = shareOf(4, 1000);
  // Twenty busy accounts: four of theirs run, and each has four more waiting.
  for (let n = 0; n < 20; n++) for (let r = 0; r < 5; r++) enter(`busy${n}`, `busy${n}/${r}`);
  expect(started).toHaveLength(4);
  enter('quiet', 'quiet/0');
  leave(started[0] ?? '');
  expect(started[4]).toBe('quiet/0');
});

it('makes a heavy account wait behind its own work: both backlogged, they are served equal weight', () => {
  const { enter, leave, started } = shareOf(1, 1000);
  for (let r = 0; r < 20; r++) {
    enter('heavy', `heavy/${r}`, 5);
    for (let l = 0; l < 5; l++) enter('light', `light/${r * 5 + l}`);
  }
  // One at a time: the first 30 served are five lights for each heavy one, whatever arrived first.
  for (let served = 0; served < 30; served++) leave(started[served] ?? '');
  const first30 = started.slice(0, 30);
  expect(first30.filter((holder) => holder.startsWith('heavy'))).toHaveLength(5);
  expect(first30.filter((holder) => holder.startsWith('light'))).toHaveLength(25);
});

it('runs a request heavier than the whole share alone', () => {
  const { enter, leave, started } = shareOf(4, 10);
  enter('a', 'big', 50);
  enter('b', 'small');
  expect(started).toEqual(['big']);
  leave('big');
  expect(started).toEqual(['big', 'small']);
});

it('holds the rest behind a heavy request that does not fit yet, but not a lighter one served before it', () => {
  const { enter, leave, started } = shareOf(4, 10);
  enter('a', 'a1', 3);
  enter('b', 'b1', 3); // waits: 3 + 3 > 4
  enter('b', 'b2'); // behind b1, its own account's work
  expect(started).toEqual(['a1']);
  // An account idle until now comes before b's requests, and fits beside a1.
  enter('c', 'c1');
  expect(started).toEqual(['a1', 'c1']);
  leave('a1');
  expect(started).toEqual(['a1', 'c1', 'b1']);
  leave('c1');
  expect(started).toEqual(['a1', 'c1', 'b1', 'b2']);
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

it('lets a waiting request leave, and does not charge its account for it', () => {
  const { enter, leave, started, share } = shareOf(1, 10);
  enter('a', 'a1');
  enter('b', 'b1');
  enter('c', 'c1');
  leave('b1');
  expect(share.load.queued).toBe(1);
  leave('a1');
  expect(started).toEqual(['a1', 'c1']);
  // c has been served, b has not (b1 left unserved): b's next goes before c's, though it comes later.
  enter('c', 'c2');
  enter('b', 'b2');
  leave('c1');
  expect(started).toEqual(['a1', 'c1', 'b2']);
});

it('forgets every finish tag once idle: no account is held back for what it ran before', () => {
  const { enter, leave, started, share } = shareOf(1, 10);
  enter('a', 'a1', 5);
  leave('a1');
  expect(share.taggedAccounts).toBe(0);
  // a's next request is not behind b's for a1.
  enter('b', 'b1');
  enter('b', 'b2');
  enter('a', 'a2');
  leave('b1');
  expect(started).toEqual(['a1', 'b1', 'a2']);
});

it('forgets, while busy, the finish tags the virtual time has passed', () => {
  const { enter, leave, share } = shareOf(1, 2_000);
  enter('busy', 'busy/0');
  // A thousand accounts come and go while the busy one keeps the instance busy and moves the virtual time on.
  for (let n = 1; n <= 1_000; n++) {
    enter(`acc${n}`, `one/${n}`);
    enter('busy', `busy/${n}`);
    leave(`busy/${n - 1}`);
    leave(`one/${n}`);
  }
  expect(share.taggedAccounts).toBeLessThan(10);
});

it('refuses limits that are not whole numbers, or no work at all', () => {
  expect(() => new FairShare({ running: 0, queued: 1 })).toThrow(RangeError);
  expect(() => new FairShare({ running: 1.5, queued: 1 })).toThrow(RangeError);
  expect(() => new FairShare({ running: 1, queued: -1 })).toThrow(RangeError);
});
