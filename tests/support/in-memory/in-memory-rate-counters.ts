import type { Window } from '../../../src/core/domain/rate-limit';
import type { RateCounterStore } from '../../../src/core/ports/rate-counter-store';

/** Counters in a map, as the Prisma adapter keeps them in rate_limit_counters. */
export class InMemoryRateCounters implements RateCounterStore {
  readonly counts = new Map<string, { key: string; windowEnd: Date; count: number }>();
  /** Round trips the adapter would make. */
  hits = 0;

  async hit(key: string, window: Pick<Window, 'start' | 'end'>, amount: number): Promise<number> {
    this.hits += 1;
    const id = `${key}@${window.start.toISOString()}`;
    const row = this.counts.get(id) ?? { key, windowEnd: window.end, count: 0 };
    this.counts.set(id, { ...row, count: row.count + amount });
    return row.count + amount;
  }

  async deleteWindowsOver(now: Date): Promise<void> {
    for (const [id, row] of this.counts) if (row.windowEnd <= now) this.counts.delete(id);
  }
}
