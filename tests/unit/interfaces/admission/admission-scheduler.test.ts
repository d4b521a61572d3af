// A request's way to its turn: its account's place, its pace, then the instance's fair share.
import type { Refusal, Waited } from '../../../../src/cluster/admission-terms';
import { AdmissionScheduler } from '../../../../src/interfaces/http/admission/admission-scheduler';

const ORDINARY = { cost: 1, weight: 1 };

/** A scheduler whose answers are recorded, by holder. */
function schedulerOf(
  account: { running: number; queued: number; startsPerSecond?: number },
  share: { running: number; queued: number },
) {
  const ran = new Map<string, Waited>();
  const refused = new Map<string, Refusal>();
  const scheduler = new AdmissionScheduler<string>(account, share, {
    run: (holder, waited) => ran.set(holder, waited),
    refuse: (holder, refusal) => refused.set(holder, refusal),
  });
  return { scheduler, ran, refused };
}

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

it('runs a request that waits for nothing at once, having waited for nothing', () => {
  const { scheduler, ran } = schedulerOf({ running: 2, queued: 2 }, { running: 4, queued: 4 });
  scheduler.enter('a', 'a1', ORDINARY);
  expect(ran.get('a1')).toEqual({ queuedMs: 0, pacedMs: 0, busyMs: 0 });
});

it('holds a request for the instance once its work is full, and says how long it waited', () => {
  const { scheduler, ran } = schedulerOf({ running: 8, queued: 8 }, { running: 1, queued: 4 });
  scheduler.enter('a', 'a1', ORDINARY);
  scheduler.enter('b', 'b1', ORDINARY);
  expect(ran.has('b1')).toBe(false);
  expect(scheduler.load).toEqual({ runningWeight: 1, queued: 1 });
  jest.advanceTimersByTime(30);
  scheduler.leave('a1');
  expect(ran.get('b1')).toEqual({ queuedMs: 0, pacedMs: 0, busyMs: 30 });
});

it("sheds a request the instance cannot queue, giving its account's place to the account's next", () => {
  const { scheduler, ran, refused } = schedulerOf({ running: 1, queued: 5 }, { running: 1, queued: 0 });
  scheduler.enter('a', 'a1', ORDINARY);
  scheduler.enter('b', 'b1', ORDINARY); // its account's place, then shed by the full instance
  expect(refused.get('b1')).toBe('busy');
  scheduler.enter('b', 'b2', ORDINARY);
  expect(refused.get('b2')).toBe('busy');
  scheduler.leave('a1');
  scheduler.enter('b', 'b3', ORDINARY);
  expect(ran.has('b3')).toBe(true);
});

it("refuses past its account's queue with the account's reason", () => {
  const { scheduler, refused } = schedulerOf({ running: 1, queued: 0 }, { running: 4, queued: 4 });
  scheduler.enter('a', 'a1', ORDINARY);
  scheduler.enter('a', 'a2', ORDINARY);
  expect(refused.get('a2')).toBe('in_flight');
});

it("lets a request leave while it waits for the instance: its place there and its account's go on", () => {
  const { scheduler, ran } = schedulerOf({ running: 1, queued: 5 }, { running: 1, queued: 4 });
  scheduler.enter('a', 'a1', ORDINARY);
  scheduler.enter('b', 'b1', ORDINARY);
  scheduler.enter('b', 'b2', ORDINARY); // waits for b1's place in its account
  scheduler.enter('c', 'c1', ORDINARY);
  scheduler.leave('b1'); // its client is gone: b2 takes b's place and waits for the instance
  expect(scheduler.load.queued).toBe(2);
  scheduler.leave('a1');
  scheduler.leave([...ran.keys()].at(-1) ?? '');
  expect([...ran.keys()]).toEqual(['a1', 'c1', 'b2']);
});

it("enters the instance only once its account's pace allows: a paced request holds none of its work", () => {
  // One of the account's requests at once, 20 a second: the second starts 50 ms after the first.
  const { scheduler, ran } = schedulerOf({ running: 1, queued: 2, startsPerSecond: 20 }, { running: 1, queued: 4 });
  scheduler.enter('a', 'a1', ORDINARY);
  jest.advanceTimersByTime(10);
  scheduler.enter('a', 'a2', ORDINARY);
  scheduler.leave('a1');
  expect(scheduler.load).toEqual({ runningWeight: 0, queued: 0 });
  // Another account runs in the meantime: the pacing request takes none of the instance.
  scheduler.enter('b', 'b1', ORDINARY);
  expect(ran.has('b1')).toBe(true);
  jest.advanceTimersByTime(40);
  // Its pace is over; the instance is b1's until it leaves.
  expect(ran.has('a2')).toBe(false);
  jest.advanceTimersByTime(5);
  scheduler.leave('b1');
  expect(ran.get('a2')).toEqual({ queuedMs: 0, pacedMs: 40, busyMs: 5 });
});

it('lets every request of a gone worker leave, the waiting ones first, and admits the others', () => {
  const { scheduler, ran } = schedulerOf({ running: 1, queued: 5 }, { running: 1, queued: 4 });
  scheduler.enter('a', '1/a1', ORDINARY);
  scheduler.enter('a', '1/a2', ORDINARY);
  scheduler.enter('b', '2/b1', ORDINARY);
  scheduler.enter('a', '2/a3', ORDINARY);
  scheduler.leaveAll((holder) => holder.startsWith('1/'));
  expect([...ran.keys()]).toEqual(['1/a1', '2/b1']);
  scheduler.leave('2/b1');
  expect([...ran.keys()]).toEqual(['1/a1', '2/b1', '2/a3']);
  expect(scheduler.load).toEqual({ runningWeight: 1, queued: 0 });
});
