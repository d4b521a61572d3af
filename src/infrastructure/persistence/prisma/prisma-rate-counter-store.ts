import type { RateCounterStore } from '../../../core/ports/rate-counter-store';
import type { PrismaClient } from './generated/client';

export class PrismaRateCounterStore implements RateCounterStore {
  constructor(private readonly prisma: PrismaClient) {}

  async hit(key: string, windowStart: Date, requests: number): Promise<number> {
    // One upsert returning the new count, outside any transaction: the row lock of the conflict
    // serialises concurrent requests of every process, and each sees its own count.
    const [row] = await this.prisma.$queryRaw<{ count: number }[]>`
      INSERT INTO rate_limit_counters (key, window_start, count) VALUES (${key}, ${windowStart}, ${requests})
      ON CONFLICT (key, window_start) DO UPDATE SET count = rate_limit_counters.count + EXCLUDED.count
      RETURNING count`;
    if (!row) throw new Error(`counting a request for ${key} returned no row`);
    return row.count;
  }

  async deleteWindowsBefore(before: Date): Promise<void> {
    await this.prisma.rateLimitCounter.deleteMany({ where: { windowStart: { lt: before } } });
  }
}
