import type { RateCounterStore } from '../../../core/ports/rate-counter-store';
import type { PrismaClient } from './generated/client';
import { prismaSql, type SqlRunner } from './sql-runner';

/** The count after a hit: one upsert, outside any transaction. */
const HIT = `
  INSERT INTO rate_limit_counters (key, window_start, count) VALUES ($1, $2, $3)
  ON CONFLICT (key, window_start) DO UPDATE SET count = rate_limit_counters.count + EXCLUDED.count
  RETURNING count`;

export class PrismaRateCounterStore implements RateCounterStore {
  constructor(
    private readonly prisma: PrismaClient,
    /**
     * For the hit, made by every key once per block of its quota in each window: with many keys
     * busy at once, about one request in five (docs/performance.md), so it takes the pool path.
     */
    private readonly sql: SqlRunner = prismaSql(prisma),
  ) {}

  async hit(key: string, windowStart: Date, requests: number): Promise<number> {
    // The row lock of the conflict serialises concurrent requests of every process, and each sees
    // its own count.
    const [row] = await this.sql.query<{ count: number }>(HIT, [key, windowStart, requests]);
    if (!row) throw new Error(`counting a request for ${key} returned no row`);
    return row.count;
  }

  async deleteWindowsBefore(before: Date): Promise<void> {
    await this.prisma.rateLimitCounter.deleteMany({ where: { windowStart: { lt: before } } });
  }
}
