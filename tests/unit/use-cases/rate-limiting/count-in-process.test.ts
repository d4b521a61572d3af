import { CountInProcess } from '../../../../src/core/use-cases/rate-limiting/count-in-process';
import { FrozenWallClock } from '../../../support/in-memory';

const perMinute = { name: 'anonymous', quota: 3, windowSeconds: 60 };

describe('CountInProcess', () => {
  it('allows the quota per epoch-aligned window, refuses the rest, and allows it whole in the next', () => {
    const clock = new FrozenWallClock('2030-01-01T12:00:45.000Z');
    const counter = new CountInProcess(clock);
    const count = () => counter.execute({ key: '203.0.113.7', policy: perMinute });
    expect([count(), count(), count()]).toEqual([
      { allowed: true, remaining: 2, resetSeconds: 15 },
      { allowed: true, remaining: 1, resetSeconds: 15 },
      { allowed: true, remaining: 0, resetSeconds: 15 },
    ]);
    expect(count()).toEqual({ allowed: false, remaining: 0, resetSeconds: 15 });
    clock.advanceBy(15_000);
    expect(count()).toEqual({ allowed: true, remaining: 2, resetSeconds: 60 });
  });

  it('counts each key on its own, and each policy in its own windows', () => {
    const clock = new FrozenWallClock('2030-01-01T12:00:00.500Z');
    const counter = new CountInProcess(clock);
    const perSecond = { name: 'burst', quota: 1, windowSeconds: 1 };
    for (let i = 0; i < 3; i += 1) counter.execute({ key: 'a', policy: perMinute });
    expect(counter.execute({ key: 'a', policy: perMinute }).allowed).toBe(false);
    expect(counter.execute({ key: 'b', policy: perMinute }).remaining).toBe(2);
    expect(counter.execute({ key: 'a', policy: perSecond }).allowed).toBe(true);
    clock.advanceBy(1_000);
    // The next second starts the per-second policy afresh and leaves the minute's counts as they were.
    expect(counter.execute({ key: 'a', policy: perSecond }).allowed).toBe(true);
    expect(counter.execute({ key: 'a', policy: perMinute }).allowed).toBe(false);
  });

  it('charges what a request costs, and a refused request nothing', () => {
    const counter = new CountInProcess(new FrozenWallClock());
    expect(counter.execute({ key: 'a', policy: perMinute, cost: 2 })).toEqual(
      expect.objectContaining({ allowed: true, remaining: 1 }),
    );
    expect(counter.execute({ key: 'a', policy: perMinute, cost: 2 })).toEqual(
      expect.objectContaining({ allowed: false, remaining: 1 }),
    );
    expect(counter.execute({ key: 'a', policy: perMinute })).toEqual(
      expect.objectContaining({ allowed: true, remaining: 0 }),
    );
    expect(() => counter.execute({ key: 'a', policy: perMinute, cost: 0.5 })).toThrow(RangeError);
  });

  it('counts at most its bound of keys a window; a key first seen past it is served uncounted', () => {
    const clock = new FrozenWallClock('2030-01-01T12:00:00Z');
    const counter = new CountInProcess(clock, 2);
    counter.execute({ key: 'a', policy: perMinute });
    counter.execute({ key: 'b', policy: perMinute });
    for (let i = 0; i < 5; i += 1) expect(counter.execute({ key: 'c', policy: perMinute }).allowed).toBe(true);
    expect(counter.uncounted).toBe(5);
    // The keys already counted are still held to their quota.
    counter.execute({ key: 'a', policy: perMinute });
    counter.execute({ key: 'a', policy: perMinute });
    expect(counter.execute({ key: 'a', policy: perMinute }).allowed).toBe(false);
    // The next window forgets the last one's keys, and counts the newcomer.
    clock.advanceMinutes(1);
    counter.execute({ key: 'c', policy: perMinute });
    expect(counter.uncounted).toBe(5);
  });
});
