import { kysely, type Slots, statement } from '../kysely';

/**
 * A hit of `amount` on the key's window: the count after it, in one upsert outside any
 * transaction. The row lock of the conflict serialises concurrent hits of every process, and each
 * sees its own count.
 */
export const HIT = statement(
  (p: Slots<{ readonly key: string; readonly windowStart: Date; readonly windowEnd: Date; readonly amount: number }>) =>
    kysely
      .insertInto('rate_limit_counters')
      .values({ key: p.key, window_start: p.windowStart, window_end: p.windowEnd, count: p.amount })
      .onConflict((conflict) =>
        conflict
          .columns(['key', 'window_start'])
          .doUpdateSet((eb) => ({ count: eb('rate_limit_counters.count', '+', eb.ref('excluded.count')) })),
      )
      .returning('count'),
);
