import { fixedWindow, type RateLimitDecision, type RateLimitPolicy } from '../../domain/rate-limit';
import type { RateCounterStore } from '../../ports/rate-counter-store';
import type { WallClock } from '../../ports/wall-clock';

/** Windows are at most this long; counters older than this are over in every policy. */
const MAX_WINDOW_SECONDS = 60;
const RETENTION_MS = 2 * MAX_WINDOW_SECONDS * 1000;
const SWEEP_EVERY_MS = 60_000;
/**
 * A process claims a key's quota from the shared counter in blocks of a sixteenth (at least one
 * request): one round trip per block instead of per request. A block claimed and left unused strands
 * at most that sixteenth per process until the window ends; the quota itself is never exceeded.
 */
const BLOCKS_PER_QUOTA = 16;

/** What this process may still allow for one key in its current window. */
interface Allowance {
  readonly windowStartMs: number;
  /** Claimed from the shared counter and not used yet. */
  left: number;
  /**
   * The quota nobody had claimed at this process's last claim (the whole quota before its first);
   * 0: the shared counter reached the quota, nothing more can be claimed in this window.
   */
  unclaimed: number;
  claiming: Promise<void> | null;
}

/**
 * Counts a request against a policy for one key (an API key, a client address) and decides on it.
 * The counts live in the shared store, so the quota holds across every process; this process keeps
 * only what it has claimed of the current window (docs/decisions.md, "Rate limits").
 */
export class CountRequest {
  private nextSweepAt = 0;
  private readonly allowances = new Map<string, Allowance>();

  constructor(
    private readonly counters: RateCounterStore,
    private readonly clock: WallClock,
  ) {}

  async execute(input: { readonly key: string; readonly policy: RateLimitPolicy }): Promise<RateLimitDecision> {
    const { key, policy } = input;
    if (policy.windowSeconds > MAX_WINDOW_SECONDS)
      throw new RangeError(`rate-limit windows are at most ${MAX_WINDOW_SECONDS} s`);
    const now = this.clock.now();
    const window = fixedWindow(now, policy.windowSeconds);
    await this.sweep(now);
    const allowance = this.allowanceOf(key, window.start.getTime(), policy.quota);
    while (allowance.left === 0 && allowance.unclaimed > 0) {
      // Requests arriving together wait for one claim rather than each claiming a block.
      allowance.claiming ??= this.claim(key, window.start, policy.quota, allowance).finally(() => {
        allowance.claiming = null;
      });
      await allowance.claiming;
    }
    if (allowance.left === 0) return { allowed: false, remaining: 0, resetSeconds: window.resetSeconds };
    allowance.left -= 1;
    return { allowed: true, remaining: allowance.left + allowance.unclaimed, resetSeconds: window.resetSeconds };
  }

  private allowanceOf(key: string, windowStartMs: number, quota: number): Allowance {
    const known = this.allowances.get(key);
    if (known?.windowStartMs === windowStartMs) return known;
    const fresh: Allowance = { windowStartMs, left: 0, unclaimed: quota, claiming: null };
    this.allowances.set(key, fresh);
    return fresh;
  }

  private async claim(key: string, windowStart: Date, quota: number, allowance: Allowance): Promise<void> {
    const block = Math.max(1, Math.floor(quota / BLOCKS_PER_QUOTA));
    const total = await this.counters.hit(key, windowStart, block);
    // Of the block, only what was still within the quota before it is this process's to allow.
    const granted = Math.min(block, Math.max(0, quota - (total - block)));
    allowance.left += granted;
    allowance.unclaimed = Math.max(0, quota - total);
  }

  /**
   * Old windows are deleted opportunistically: at most once a minute per process, by whichever
   * request comes; this process's allowances of windows that are over go with them.
   */
  private async sweep(now: Date): Promise<void> {
    if (now.getTime() < this.nextSweepAt) return;
    this.nextSweepAt = now.getTime() + SWEEP_EVERY_MS;
    for (const [key, allowance] of this.allowances) {
      if (allowance.windowStartMs < now.getTime() - MAX_WINDOW_SECONDS * 1000) this.allowances.delete(key);
    }
    await this.counters.deleteWindowsBefore(new Date(now.getTime() - RETENTION_MS));
  }
}
