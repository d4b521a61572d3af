import type { FailureToRecord, LoginCounter } from '../../../../core/domain/login-throttle';
import type { LoginThrottleRepository } from '../../../../core/ports/repositories';
import type { Db } from '../db';

export class PrismaLoginThrottleRepository implements LoginThrottleRepository {
  constructor(private readonly db: Db) {}

  find(keys: readonly string[]): Promise<LoginCounter[]> {
    return this.db.loginThrottle.findMany({ where: { key: { in: [...keys] } } });
  }

  async recordFailure(failure: FailureToRecord): Promise<void> {
    const { key, now, windowStartsAfter, threshold, lockUntil } = failure;
    // One upsert, so failures arriving at once at several processes are all counted: a window
    // that is over starts again at 1; reaching the threshold sets the lock.
    await this.db.$executeRaw`
      INSERT INTO login_throttles (key, failures, window_started_at, locked_until)
      VALUES (${key}, 1, ${now}, CASE WHEN 1 >= ${threshold} THEN ${lockUntil}::timestamptz END)
      ON CONFLICT (key) DO UPDATE SET
        failures = CASE WHEN login_throttles.window_started_at <= ${windowStartsAfter} THEN 1 ELSE login_throttles.failures + 1 END,
        window_started_at = CASE WHEN login_throttles.window_started_at <= ${windowStartsAfter} THEN ${now} ELSE login_throttles.window_started_at END,
        locked_until = CASE
          WHEN (CASE WHEN login_throttles.window_started_at <= ${windowStartsAfter} THEN 1 ELSE login_throttles.failures + 1 END) >= ${threshold}
          THEN ${lockUntil}::timestamptz
          ELSE login_throttles.locked_until
        END`;
  }

  async clear(key: string): Promise<void> {
    await this.db.loginThrottle.deleteMany({ where: { key } });
  }
}
