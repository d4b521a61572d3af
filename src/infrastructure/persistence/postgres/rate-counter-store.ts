import type { Window } from '../../../core/domain/rate-limit';
import type { RateCounterStore } from '../../../core/ports/rate-counter-store';
import type { PrismaClient } from '../../database/driver/generated/client';
import type { SqlRunner } from '../../database/driver/sql-runner';
import { HIT } from './statements/rate-limit';

export class PostgresRateCounterStore implements RateCounterStore {
  constructor(
    private readonly prisma: PrismaClient,
    /**
     * For the hit, made by every key once per block of its quota in each window: with many keys
     * busy at once, about one request in five (docs/performance.md).
     */
    private readonly sql: SqlRunner,
  ) {}

  async hit(key: string, window: Pick<Window, 'start' | 'end'>, amount: number): Promise<number> {
    // The row lock of the conflict serialises concurrent requests of every process, and each sees
    // its own count.
    const [row] = await HIT.run(this.sql, { key, windowStart: window.start, windowEnd: window.end, amount });
    if (!row) throw new Error(`counting a request for ${key} returned no row`);
    return row.count;
  }

  async deleteWindowsOver(now: Date): Promise<void> {
    await this.prisma.rateLimitCounter.deleteMany({ where: { windowEnd: { lte: now } } });
  }
}
