import { MAX_KEPT_ANSWER_BYTES } from '../../../../src/core/ports/idempotency-store';
import { KeptAnswers } from '../../../../src/core/use-cases/idempotency/kept-answers';
import { CountRequest } from '../../../../src/core/use-cases/rate-limiting/count-request';
import { FrozenWallClock, InMemoryRateCounters } from '../../../support/in-memory';

/** One service process: its own claims on the counters every process shares. */
function aProcess(
  counters: InMemoryRateCounters,
  clock: FrozenWallClock,
  bounds: ConstructorParameters<typeof KeptAnswers>[1],
) {
  return new KeptAnswers(new CountRequest(counters, clock), bounds);
}

describe("KeptAnswers: what an account's keyed requests may keep in an hour", () => {
  it('admits its keyed requests up to its keys an hour, then refuses them until the hour ends', async () => {
    const clock = new FrozenWallClock('2030-01-01T12:40:00Z');
    const kept = aProcess(new InMemoryRateCounters(), clock, { keysPerHour: 3 });

    const admissions = [];
    for (let n = 0; n < 5; n += 1) admissions.push(await kept.admission('acc_1'));

    expect(admissions).toEqual([
      null,
      null,
      null,
      { quota: 'keys', retryAfterSeconds: 1200 },
      { quota: 'keys', retryAfterSeconds: 1200 },
    ]);
    // Another account's keys are its own.
    expect(await kept.admission('acc_2')).toBeNull();
    clock.advanceMinutes(20);
    expect(await kept.admission('acc_1')).toBeNull();
  });

  it('refuses keyed requests before they act once the kept bytes cannot take the longest answer kept', async () => {
    const counters = new InMemoryRateCounters();
    // Under 32 keys an hour, each key is claimed one by one (count-request.ts): the count is exact.
    const kept = aProcess(counters, new FrozenWallClock('2030-01-01T12:00:00Z'), { mibPerHour: 1, keysPerHour: 20 });

    // 1 MiB holds 16 answers of 64 KiB, with nothing left over.
    for (let n = 0; n < 15; n += 1) {
      expect(await kept.admission('acc_1')).toBeNull();
      expect(await kept.refusal('acc_1', MAX_KEPT_ANSWER_BYTES)).toBeNull();
    }
    expect(await kept.admission('acc_1')).toBeNull();
    expect(await kept.refusal('acc_1', MAX_KEPT_ANSWER_BYTES - 100)).toBeNull();

    expect(await kept.admission('acc_1')).toEqual({ quota: 'kept_bytes', retryAfterSeconds: 3600 });
    // Refused without counting a key: the 16 admitted are all that count.
    expect([...counters.counts.values()].find((row) => row.key === 'kept-keys:acc_1')?.count).toBe(16);
    expect(await kept.admission('acc_2')).toBeNull();
  });

  it('admits no more keyed requests than the bound over every process, however they come', async () => {
    const counters = new InMemoryRateCounters();
    const clock = new FrozenWallClock('2030-01-01T12:00:00Z');
    const processes = [aProcess(counters, clock, { keysPerHour: 40 }), aProcess(counters, clock, { keysPerHour: 40 })];

    const admissions = await Promise.all(Array.from({ length: 100 }, (_, n) => processes[n % 2]?.admission('acc_1')));

    const admitted = admissions.filter((admission) => admission === null).length;
    // Each process may strand the rest of one block of a sixteenth (2 keys) unused; never more.
    expect(admitted).toBeLessThanOrEqual(40);
    expect(admitted).toBeGreaterThanOrEqual(40 - 2 * 2);
  });

  it('does not keep an answer past the kept bytes that a request admitted with another came first to', async () => {
    const counters = new InMemoryRateCounters();
    const clock = new FrozenWallClock('2030-01-01T12:00:00Z');
    const [first, second] = [
      aProcess(counters, clock, { mibPerHour: 1 }),
      aProcess(counters, clock, { mibPerHour: 1 }),
    ];

    // The second is admitted while it still knows of the whole MiB; the first then takes all but 4 KiB.
    expect(await second.admission('acc_1')).toBeNull();
    for (let n = 0; n < 16; n += 1) {
      expect(await first.admission('acc_1')).toBeNull();
      expect(await first.refusal('acc_1', MAX_KEPT_ANSWER_BYTES - (n === 15 ? 4096 : 0))).toBeNull();
    }

    expect(await second.refusal('acc_1', 5000)).toBe('quota_reached');
    // The second now knows: its next keyed request is refused before it acts.
    expect(await second.admission('acc_1')).toMatchObject({ quota: 'kept_bytes' });
  });

  it('takes back a key given back within its hour, in the process that counted it', async () => {
    const counters = new InMemoryRateCounters();
    const clock = new FrozenWallClock('2030-01-01T12:40:00Z');
    const kept = aProcess(counters, clock, { keysPerHour: 1 });
    expect(await kept.admission('acc_1')).toBeNull();
    kept.giveBackKey('acc_1');
    expect(await kept.admission('acc_1')).toBeNull();
    expect(await kept.admission('acc_1')).toEqual({ quota: 'keys', retryAfterSeconds: 1200 });
    // The shared count stays: another process finds the bound spent.
    expect(await aProcess(counters, clock, { keysPerHour: 1 }).admission('acc_1')).toEqual({
      quota: 'keys',
      retryAfterSeconds: 1200,
    });
    // A key given back in one hour is not carried into the next.
    kept.giveBackKey('acc_1');
    clock.advanceMinutes(20);
    expect(await kept.admission('acc_1')).toBeNull();
    expect(await kept.admission('acc_1')).toEqual({ quota: 'keys', retryAfterSeconds: 3600 });
  });

  it('refuses bounds that are not whole numbers within their range', () => {
    const counting = new CountRequest(new InMemoryRateCounters(), new FrozenWallClock());
    expect(() => new KeptAnswers(counting, { keysPerHour: 0 })).toThrow(RangeError);
    expect(() => new KeptAnswers(counting, { keysPerHour: 1.5 })).toThrow(RangeError);
    expect(() => new KeptAnswers(counting, { mibPerHour: 257 })).toThrow(RangeError);
  });
});
