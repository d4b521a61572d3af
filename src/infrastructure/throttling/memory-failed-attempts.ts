import { RateLimiterMemory } from 'rate-limiter-flexible';
import type { FailedAttempts } from '../../core/ports/failed-attempts';

export interface FailedAttemptsLimit {
  /** Failures a client may have in one window; the next attempt waits for the window's end. 0: no limit. */
  readonly failures: number;
  readonly windowSeconds: number;
}

/**
 * 30 unknown, revoked or expired keys from one client address a minute: far more than a client
 * with a stale key sends before someone looks, and the database reads of guessing stay few.
 */
export const DEFAULT_FAILED_API_KEYS: FailedAttemptsLimit = { failures: 30, windowSeconds: 60 };

/**
 * Counts in a fixed window per client, in this process: rate-limiter-flexible's memory limiter,
 * whose entries expire with their window, so what it holds is bounded by the clients that failed
 * lately. A cluster's workers each count their share of the instance's limit (config.ts), so the
 * workers together allow about the limit and never a multiple of it, with no round trip between
 * processes on the way to the database.
 */
export class MemoryFailedAttempts implements FailedAttempts {
  private readonly limiter: RateLimiterMemory;

  constructor(private readonly limit: FailedAttemptsLimit) {
    this.limiter = new RateLimiterMemory({ points: limit.failures, duration: limit.windowSeconds });
  }

  async waitBeforeNext(client: string): Promise<number> {
    if (this.limit.failures === 0) return 0;
    const counted = await this.limiter.get(client);
    // An entry past its window may linger until its timer removes it: it holds nobody back.
    if (!counted || counted.consumedPoints < this.limit.failures || counted.msBeforeNext <= 0) return 0;
    return counted.msBeforeNext;
  }

  async failed(client: string): Promise<void> {
    if (this.limit.failures === 0) return;
    await this.limiter.penalty(client);
  }
}
