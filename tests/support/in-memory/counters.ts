import type { ApiKey } from '../../../src/core/domain/account';
import { isLocked, type AttemptToRecord, type LoginCounter } from '../../../src/core/domain/login-throttle';
import type { Counters, KeyUses, SignInAttempts } from '../../../src/core/ports/counters';
import { AT_ONCE, type Table } from './table';

/** The counters over an InMemoryDatabase's tables: each change applies at once, as each is a statement of its own. */
export function inMemoryCounters(tables: { loginCounters: Table<LoginCounter>; apiKeys: Table<ApiKey> }): Counters {
  return {
    signInAttempts: new InMemorySignInAttempts(tables.loginCounters),
    keyUses: new InMemoryKeyUses(tables.apiKeys),
  };
}

/** Counts as the real upsert does: a window that is over starts again; the threshold locks. */
class InMemorySignInAttempts implements SignInAttempts {
  constructor(private readonly table: Table<LoginCounter>) {}

  async record(attempt: AttemptToRecord): Promise<LoginCounter> {
    const stored = this.table.get(attempt.key);
    if (stored && isLocked(stored, attempt.now)) return stored;
    const windowOver = !stored || stored.windowStartedAt.getTime() <= attempt.windowStartsAfter.getTime();
    const failures = windowOver ? 1 : stored.failures + 1;
    const counter: LoginCounter = {
      key: attempt.key,
      failures,
      windowStartedAt: windowOver ? attempt.now : stored.windowStartedAt,
      lockedUntil: failures > attempt.threshold ? attempt.lockUntil : (stored?.lockedUntil ?? null),
    };
    if (stored) this.table.update(attempt.key, counter, AT_ONCE);
    else this.table.insert(attempt.key, counter, AT_ONCE);
    return counter;
  }

  async forgive(key: string): Promise<void> {
    const stored = this.table.get(key);
    if (stored) this.table.update(key, { ...stored, failures: Math.max(stored.failures - 1, 0) }, AT_ONCE);
  }

  async clear(key: string): Promise<void> {
    this.table.delete(key, AT_ONCE);
  }
}

class InMemoryKeyUses implements KeyUses {
  constructor(private readonly table: Table<ApiKey>) {}

  async record(keyId: string, at: Date, unlessSince: Date): Promise<void> {
    const stored = this.table.get(keyId);
    if (!stored || (stored.lastUsedAt !== null && stored.lastUsedAt.getTime() > unlessSince.getTime())) return;
    this.table.update(keyId, { ...stored, lastUsedAt: at }, AT_ONCE);
  }
}
