import type { AttemptToRecord, LoginCounter } from '../../../core/domain/login-throttle';
import type { Counters, KeyUses, SignInAttempts } from '../../../core/ports/counters';
import type { PrismaClient } from '../../database/driver/generated/client';
import type { Database } from './repositories';
import type { SqlRunner } from '../../database/driver/sql-runner';
import { RECORD_ATTEMPT } from './statements/login-throttles';

/** The counters, each change one statement of its own (TransactionBoundary.count). */
export function postgresCounters({ prisma, sql }: Database): Counters {
  return { signInAttempts: new PostgresSignInAttempts(prisma, sql), keyUses: new PostgresKeyUses(prisma) };
}

class PostgresSignInAttempts implements SignInAttempts {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly sql: SqlRunner,
  ) {}

  async record(attempt: AttemptToRecord): Promise<LoginCounter> {
    // One upsert returning the new row: concurrent attempts at several processes are all counted
    // and each sees its own count. A window that is over starts again at 1; a lock in force stays.
    const [counter] = await RECORD_ATTEMPT.run(this.sql, attempt);
    if (!counter) throw new Error(`counting a sign-in attempt for ${attempt.key} returned no row`);
    return counter;
  }

  async forgive(key: string): Promise<void> {
    await this.prisma.loginThrottle.updateMany({
      where: { key, failures: { gt: 0 } },
      data: { failures: { decrement: 1 } },
    });
  }

  async clear(key: string): Promise<void> {
    await this.prisma.loginThrottle.deleteMany({ where: { key } });
  }
}

class PostgresKeyUses implements KeyUses {
  constructor(private readonly prisma: PrismaClient) {}

  async record(keyId: string, at: Date, unlessSince: Date): Promise<void> {
    // One statement, no read-modify-write: concurrent requests of one key write at most once.
    await this.prisma.apiKey.updateMany({
      where: { id: keyId, OR: [{ lastUsedAt: null }, { lastUsedAt: { lte: unlessSince } }] },
      data: { lastUsedAt: at },
    });
  }
}
