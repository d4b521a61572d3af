import type { AttemptToRecord, LoginCounter } from '../../../../core/domain/login-throttle';
import type { LoginThrottleRepository } from '../../../../core/ports/repositories';
import type { PrismaClient } from '../../prisma/generated/client';
import type { SqlRunner } from '../sql-runner';
import { RECORD_ATTEMPT } from '../statements/login-throttles';
import type { Writes } from '../unit-of-work/writes';

/** Sign-in counters: each change one statement of its own, shared by every process; no account's state. */
export class PostgresLoginThrottleRepository implements LoginThrottleRepository {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly sql: SqlRunner,
    private readonly writes: Writes,
  ) {}

  async find(keys: readonly string[]): Promise<LoginCounter[]> {
    this.writes.beforeRead();
    return this.prisma.loginThrottle.findMany({ where: { key: { in: [...keys] } } });
  }

  async recordAttempt(attempt: AttemptToRecord): Promise<LoginCounter> {
    this.writes.beforeOwnStatement('counting a sign-in attempt');
    // One upsert returning the new row: concurrent attempts at several processes are all counted
    // and each sees its own count. A window that is over starts again at 1; a lock in force stays.
    const [counter] = await RECORD_ATTEMPT.run(this.sql, attempt);
    if (!counter) throw new Error(`counting a sign-in attempt for ${attempt.key} returned no row`);
    return counter;
  }

  async forgiveAttempt(key: string): Promise<void> {
    this.writes.beforeOwnStatement('forgiving a sign-in attempt');
    await this.prisma.loginThrottle.updateMany({
      where: { key, failures: { gt: 0 } },
      data: { failures: { decrement: 1 } },
    });
  }

  async clear(key: string): Promise<void> {
    this.writes.beforeOwnStatement('clearing sign-in attempts');
    await this.prisma.loginThrottle.deleteMany({ where: { key } });
  }
}
