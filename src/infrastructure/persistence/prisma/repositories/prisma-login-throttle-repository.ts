import type { AttemptToRecord, LoginCounter } from '../../../../core/domain/login-throttle';
import type { LoginThrottleRepository } from '../../../../core/ports/repositories';
import type { Db } from '../db';

export class PrismaLoginThrottleRepository implements LoginThrottleRepository {
  constructor(private readonly db: Db) {}

  find(keys: readonly string[]): Promise<LoginCounter[]> {
    return this.db.loginThrottle.findMany({ where: { key: { in: [...keys] } } });
  }

  async recordAttempt(attempt: AttemptToRecord): Promise<LoginCounter> {
    const { key, now, windowStartsAfter, threshold, lockUntil } = attempt;
    // One upsert returning the new row: concurrent attempts at several processes are all counted
    // and each sees its own count. A window that is over starts again at 1; a lock in force stays.
    const [counter] = await this.db.$queryRaw<LoginCounter[]>`
      INSERT INTO login_throttles (key, failures, window_started_at, locked_until)
      VALUES (${key}, 1, ${now}, CASE WHEN 1 > ${threshold} THEN ${lockUntil}::timestamptz END)
      ON CONFLICT (key) DO UPDATE SET
        failures = CASE
          WHEN login_throttles.locked_until > ${now} THEN login_throttles.failures
          WHEN login_throttles.window_started_at <= ${windowStartsAfter} THEN 1
          ELSE login_throttles.failures + 1 END,
        window_started_at = CASE
          WHEN login_throttles.locked_until > ${now} THEN login_throttles.window_started_at
          WHEN login_throttles.window_started_at <= ${windowStartsAfter} THEN ${now}
          ELSE login_throttles.window_started_at END,
        locked_until = CASE
          WHEN login_throttles.locked_until > ${now} THEN login_throttles.locked_until
          WHEN login_throttles.window_started_at > ${windowStartsAfter} AND login_throttles.failures + 1 > ${threshold}
          THEN ${lockUntil}::timestamptz
          ELSE login_throttles.locked_until END
      RETURNING key, failures, window_started_at AS "windowStartedAt", locked_until AS "lockedUntil"`;
    if (!counter) throw new Error(`counting a sign-in attempt for ${key} returned no row`);
    return counter;
  }

  async forgiveAttempt(key: string): Promise<void> {
    await this.db.$executeRaw`UPDATE login_throttles SET failures = GREATEST(failures - 1, 0) WHERE key = ${key}`;
  }

  async clear(key: string): Promise<void> {
    await this.db.loginThrottle.deleteMany({ where: { key } });
  }
}
