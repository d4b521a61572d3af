import { fixedWindow } from '../../../../src/core/domain/rate-limit';
import { CountRequest } from '../../../../src/core/use-cases/rate-limiting/count-request';
import { FrozenWallClock, InMemoryRateCounters } from '../../../support/in-memory';

const perSecond = { name: 'default', quota: 2, windowSeconds: 1 };

describe('fixedWindow', () => {
  it('aligns windows to the epoch and rounds the time to reset up to whole seconds', () => {
    expect(fixedWindow(new Date('2030-01-01T12:00:00.250Z'), 1)).toEqual({
      start: new Date('2030-01-01T12:00:00.000Z'),
      end: new Date('2030-01-01T12:00:01.000Z'),
      resetSeconds: 1,
    });
    expect(fixedWindow(new Date('2030-01-01T12:00:30.500Z'), 60)).toEqual({
      start: new Date('2030-01-01T12:00:00.000Z'),
      end: new Date('2030-01-01T12:01:00.000Z'),
      resetSeconds: 30,
    });
    expect(fixedWindow(new Date('2030-01-01T12:00:00.000Z'), 60).resetSeconds).toBe(60);
  });
});

describe('CountRequest', () => {
  it('allows the quota per window, then refuses with nothing remaining until the next window', async () => {
    const clock = new FrozenWallClock('2030-01-01T12:00:00.100Z');
    const countRequest = new CountRequest(new InMemoryRateCounters(), clock);
    const count = () => countRequest.execute({ key: 'api-key:key_1', policy: perSecond });
    expect(await count()).toEqual({ allowed: true, remaining: 1, resetSeconds: 1 });
    expect(await count()).toEqual({ allowed: true, remaining: 0, resetSeconds: 1 });
    expect(await count()).toEqual({ allowed: false, remaining: 0, resetSeconds: 1 });
    clock.advanceBy(1000);
    expect(await count()).toEqual({ allowed: true, remaining: 1, resetSeconds: 1 });
  });

  it('counts each key on its own', async () => {
    const countRequest = new CountRequest(new InMemoryRateCounters(), new FrozenWallClock());
    await countRequest.execute({ key: 'api-key:key_1', policy: perSecond });
    await countRequest.execute({ key: 'api-key:key_1', policy: perSecond });
    expect((await countRequest.execute({ key: 'api-key:key_2', policy: perSecond })).remaining).toBe(1);
  });

  it('deletes the windows that are over, at most once a minute', async () => {
    const clock = new FrozenWallClock('2030-01-01T12:00:00Z');
    const counters = new InMemoryRateCounters();
    const countRequest = new CountRequest(counters, clock);
    await countRequest.execute({ key: 'a', policy: perSecond });
    clock.advanceMinutes(3);
    await countRequest.execute({ key: 'b', policy: perSecond }); // sweeps: the window of `a` is over
    expect([...counters.counts.values()].map((row) => row.key)).toEqual(['b']);
    clock.advanceMinutes(2.5);
    await countRequest.execute({ key: 'c', policy: perSecond });
    expect([...counters.counts.values()].map((row) => row.key)).toEqual(['c']);
  });

  describe('claiming the quota in blocks', () => {
    const quota32 = { name: 'default', quota: 32, windowSeconds: 1 };
    const allowedOf = (decisions: { allowed: boolean }[]) => decisions.filter((decision) => decision.allowed).length;

    it('allows exactly the quota with one round trip per sixteenth of it, and tells the exact remainder', async () => {
      const counters = new InMemoryRateCounters();
      const countRequest = new CountRequest(counters, new FrozenWallClock('2030-01-01T12:00:00.100Z'));
      const decisions = [];
      for (let n = 0; n < 40; n += 1) decisions.push(await countRequest.execute({ key: 'k', policy: quota32 }));
      expect(allowedOf(decisions)).toBe(32);
      expect(decisions.slice(0, 32).map((decision) => decision.remaining)).toEqual(
        Array.from({ length: 32 }, (_, n) => 31 - n),
      );
      // Refusals once the shared count reached the quota cost no round trip.
      expect(counters.hits).toBe(16);
    });

    it('lets requests that arrive together wait for one claim', async () => {
      const counters = new InMemoryRateCounters();
      const countRequest = new CountRequest(counters, new FrozenWallClock('2030-01-01T12:00:00.100Z'));
      const decisions = await Promise.all(
        Array.from({ length: 2 }, () => countRequest.execute({ key: 'k', policy: quota32 })),
      );
      expect(allowedOf(decisions)).toBe(2);
      expect(counters.hits).toBe(1);
    });

    it('never allows more than the quota across processes sharing the counters', async () => {
      const counters = new InMemoryRateCounters();
      const clock = new FrozenWallClock('2030-01-01T12:00:00.100Z');
      const processes = [
        new CountRequest(counters, clock),
        new CountRequest(counters, clock),
        new CountRequest(counters, clock),
      ];
      const decisions = await Promise.all(
        Array.from({ length: 60 }, (_, n) =>
          processes[n % 3]?.execute({ key: 'k', policy: { ...quota32, quota: 33 } }),
        ),
      );
      const allowed = decisions.filter((decision) => decision?.allowed).length;
      // Each process may strand the rest of one block (two requests) unused; never more.
      expect(allowed).toBeLessThanOrEqual(33);
      expect(allowed).toBeGreaterThanOrEqual(33 - 2 * 2);
    });

    it('starts over in the next window', async () => {
      const clock = new FrozenWallClock('2030-01-01T12:00:00.100Z');
      const countRequest = new CountRequest(new InMemoryRateCounters(), clock);
      for (let n = 0; n < 33; n += 1) await countRequest.execute({ key: 'k', policy: quota32 });
      clock.advanceBy(1000);
      expect(await countRequest.execute({ key: 'k', policy: quota32 })).toEqual({
        allowed: true,
        remaining: 31,
        resetSeconds: 1,
      });
    });
  });

  describe('requests that cost more than one (bytes)', () => {
    const hourly = { name: 'kept-bytes', quota: 16_000, windowSeconds: 3600 };

    it('allows costs up to the quota in one window, then refuses what no longer fits', async () => {
      const counters = new InMemoryRateCounters();
      const countRequest = new CountRequest(counters, new FrozenWallClock('2030-01-01T12:00:00Z'));
      const spend = (cost: number) => countRequest.execute({ key: 'k', policy: hourly, cost });
      expect(await spend(6_000)).toMatchObject({ allowed: true, remaining: 10_000, resetSeconds: 3600 });
      expect(await spend(6_000)).toMatchObject({ allowed: true, remaining: 4_000 });
      expect(await spend(6_000)).toMatchObject({ allowed: false, remaining: 4_000 });
      // What still fits is allowed.
      expect(await spend(4_000)).toMatchObject({ allowed: true, remaining: 0 });
      expect(await spend(1)).toMatchObject({ allowed: false, remaining: 0 });
      // A cost larger than a block is claimed at once: one round trip each, none once nothing is left.
      expect(counters.hits).toBe(3);
    });

    it('keeps an hour-long window through the sweeps and forgets it once it is over', async () => {
      const clock = new FrozenWallClock('2030-01-01T12:00:00Z');
      const counters = new InMemoryRateCounters();
      const countRequest = new CountRequest(counters, clock);
      await countRequest.execute({ key: 'k', policy: hourly, cost: 16_000 });
      clock.advanceMinutes(30);
      expect(await countRequest.execute({ key: 'k', policy: hourly, cost: 1 })).toMatchObject({ allowed: false });
      expect([...counters.counts.values()].map((row) => row.key)).toEqual(['k']);
      clock.advanceMinutes(31);
      expect(await countRequest.execute({ key: 'k', policy: hourly, cost: 1 })).toMatchObject({ allowed: true });
      expect([...counters.counts.values()].map((row) => row.count)).toEqual([1_000]);
    });

    it('tells what this process may still allow without counting or asking the store', async () => {
      const clock = new FrozenWallClock('2030-01-01T12:15:00Z');
      const counters = new InMemoryRateCounters();
      const processes = [new CountRequest(counters, clock), new CountRequest(counters, clock)];
      const peek = (process: CountRequest | undefined) => process?.peek({ key: 'k', policy: hourly });
      // Before its first claim a process knows only the quota.
      expect(peek(processes[0])).toEqual({ remaining: 16_000, resetSeconds: 2700 });
      await processes[0]?.execute({ key: 'k', policy: hourly, cost: 6_000 });
      expect(peek(processes[0])).toEqual({ remaining: 10_000, resetSeconds: 2700 });
      await processes[1]?.execute({ key: 'k', policy: hourly, cost: 9_000 });
      // The first has not asked since: what it tells is at least what is left, never less.
      expect(peek(processes[0])?.remaining).toBe(10_000);
      expect(peek(processes[1])?.remaining).toBe(1_000);
      expect(counters.hits).toBe(2);
      clock.advanceMinutes(45);
      expect(peek(processes[1])).toEqual({ remaining: 16_000, resetSeconds: 3600 });
    });

    it('refuses a cost that is not a whole number', async () => {
      const countRequest = new CountRequest(new InMemoryRateCounters(), new FrozenWallClock());
      await expect(countRequest.execute({ key: 'k', policy: hourly, cost: 1.5 })).rejects.toThrow(RangeError);
    });
  });
});
