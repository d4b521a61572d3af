import { fixedWindow, type RateLimitDecision } from '../../domain/rate-limit';
import type { WallClock } from '../../ports/wall-clock';
import { costOf } from './count-request';
import type { CountedRequest, RequestCounter } from './request-counter';

/**
 * The most keys one policy counts in a window: about 7 MiB of memory (70 to 80 bytes a client
 * address, measured). Only a crowd of that many addresses within a minute reaches it, beyond what
 * one address's limit is for.
 */
export const MAX_KEYS_PER_WINDOW = 100_000;

interface PolicyWindow {
  readonly startMs: number;
  readonly counts: Map<string, number>;
}

/**
 * Counts requests per key in this process's memory, in the epoch-aligned fixed windows CountRequest
 * uses, for limits that must cost the database nothing: those of requests that carry no API key,
 * health checks among them, which must answer while the database is away. A policy's counts are
 * dropped whole when its next window begins, so no timer or sweep is needed and the memory is that
 * of the keys seen in one window, at most MAX_KEYS_PER_WINDOW per policy. A key first seen once a
 * window counts that many is served uncounted (tallied in `uncounted`) rather than refused: failing
 * closed would lock out every newcomer for the rest of the window.
 */
export class CountInProcess implements RequestCounter {
  /** Requests served uncounted because their window already counted MAX_KEYS_PER_WINDOW keys. */
  uncounted = 0;
  private readonly windows = new Map<string, PolicyWindow>();

  constructor(
    private readonly clock: WallClock,
    private readonly maxKeys = MAX_KEYS_PER_WINDOW,
  ) {}

  execute(input: CountedRequest): RateLimitDecision {
    const { key, policy } = input;
    const cost = costOf(input);
    const window = fixedWindow(this.clock.now(), policy.windowSeconds);
    const counts = this.countsOf(policy.name, window.start.getTime());
    const counted = counts.get(key);
    if (counted === undefined && counts.size >= this.maxKeys) {
      this.uncounted += 1;
      return { allowed: true, remaining: Math.max(0, policy.quota - cost), resetSeconds: window.resetSeconds };
    }
    const before = counted ?? 0;
    // As CountRequest: a refused request costs nothing, so a client that waits gets its whole quota.
    if (before + cost > policy.quota)
      return { allowed: false, remaining: policy.quota - before, resetSeconds: window.resetSeconds };
    counts.set(key, before + cost);
    return { allowed: true, remaining: policy.quota - before - cost, resetSeconds: window.resetSeconds };
  }

  private countsOf(policyName: string, startMs: number): Map<string, number> {
    const known = this.windows.get(policyName);
    if (known?.startMs === startMs) return known.counts;
    const fresh = { startMs, counts: new Map<string, number>() };
    this.windows.set(policyName, fresh);
    return fresh.counts;
  }
}
