import { fixedWindow, type RateLimitDecision, type Window } from '../../domain/rate-limit';
import type { RateCounterStore } from '../../ports/rate-counter-store';
import type { WallClock } from '../../ports/wall-clock';
import type { CountedRequest, RequestCounter } from './request-counter';

const SWEEP_EVERY_MS = 60_000;
/**
 * A process claims a key's quota from the shared counter in blocks of a sixteenth (at least one
 * request, and at least the request's cost): one round trip per block instead of per request. A
 * block claimed and left unused strands at most that sixteenth per process until the window ends;
 * the quota itself is never exceeded.
 */
const BLOCKS_PER_QUOTA = 16;

/** What this process may still allow for one key in its current window. */
interface Allowance {
  readonly windowStartMs: number;
  readonly windowEndMs: number;
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
 * Counts a request against a policy for one key (an account, a client address) and decides on it.
 * A request costs 1 unless it says otherwise (a kept answer costs its bytes). The counts live in the
 * shared store, so the quota holds across every process; this process keeps only what it has
 * claimed of the current window (docs/decisions.md, "Rate limits").
 */
export class CountRequest implements RequestCounter {
  private nextSweepAt = 0;
  private readonly allowances = new Map<string, Allowance>();

  constructor(
    private readonly counters: RateCounterStore,
    private readonly clock: WallClock,
  ) {}

  async execute(input: CountedRequest): Promise<RateLimitDecision> {
    const { key, policy } = input;
    const cost = costOf(input);
    const now = this.clock.now();
    const window = fixedWindow(now, policy.windowSeconds);
    await this.sweep(now);
    const allowance = this.allowanceOf(key, window, policy.quota);
    while (allowance.left < cost && allowance.unclaimed > 0) {
      // Requests arriving together wait for one claim rather than each claiming a block.
      allowance.claiming ??= this.claim(key, window, policy.quota, cost - allowance.left, allowance).finally(() => {
        allowance.claiming = null;
      });
      await allowance.claiming;
    }
    const remaining = () => allowance.left + allowance.unclaimed;
    if (allowance.left < cost) return { allowed: false, remaining: remaining(), resetSeconds: window.resetSeconds };
    allowance.left -= cost;
    return { allowed: true, remaining: remaining(), resetSeconds: window.resetSeconds };
  }

  /**
   * Gives back what an allowed request cost, when it turned out to use nothing of what the policy
   * bounds (a keyed request that was a retry claims no key): this process may allow as much again
   * in the same window. Only to this process's claimed allowance: the shared count stays, so the
   * quota still holds across processes; a window that ended meanwhile takes nothing back.
   */
  giveBack(input: CountedRequest): void {
    const window = fixedWindow(this.clock.now(), input.policy.windowSeconds);
    const known = this.allowances.get(input.key);
    if (known?.windowStartMs === window.start.getTime()) known.left += costOf(input);
  }

  /**
   * What this process may still allow for the key in its current window as far as it knows,
   * without asking the store or counting anything: what it claimed and has not used, plus what
   * nobody had claimed at its last claim (the whole quota before its first). Other processes may
   * have claimed some of that since; never less than what is really left.
   */
  peek(input: Omit<CountedRequest, 'cost'>): Omit<RateLimitDecision, 'allowed'> {
    const window = fixedWindow(this.clock.now(), input.policy.windowSeconds);
    const known = this.allowances.get(input.key);
    const current = known?.windowStartMs === window.start.getTime() ? known : null;
    const remaining = current ? current.left + current.unclaimed : input.policy.quota;
    return { remaining, resetSeconds: window.resetSeconds };
  }

  private allowanceOf(key: string, window: Window, quota: number): Allowance {
    const known = this.allowances.get(key);
    if (known?.windowStartMs === window.start.getTime()) return known;
    const fresh: Allowance = {
      windowStartMs: window.start.getTime(),
      windowEndMs: window.end.getTime(),
      left: 0,
      unclaimed: quota,
      claiming: null,
    };
    this.allowances.set(key, fresh);
    return fresh;
  }

  private async claim(key: string, window: Window, quota: number, needed: number, allowance: Allowance): Promise<void> {
    const block = Math.min(allowance.unclaimed, Math.max(1, needed, Math.floor(quota / BLOCKS_PER_QUOTA)));
    const total = await this.counters.hit(key, window, block);
    // Of the block, only what was still within the quota before it is this process's to allow.
    const granted = Math.min(block, Math.max(0, quota - (total - block)));
    allowance.left += granted;
    allowance.unclaimed = Math.max(0, quota - total);
  }

  /**
   * Windows that are over are deleted opportunistically: at most once a minute per process, by
   * whichever request comes; this process's allowances of those windows go with them.
   */
  private async sweep(now: Date): Promise<void> {
    if (now.getTime() < this.nextSweepAt) return;
    this.nextSweepAt = now.getTime() + SWEEP_EVERY_MS;
    for (const [key, allowance] of this.allowances) {
      if (allowance.windowEndMs <= now.getTime()) this.allowances.delete(key);
    }
    await this.counters.deleteWindowsOver(now);
  }
}

/** What a counted request costs: 1 unless it says otherwise, and always a whole number. */
export function costOf(input: CountedRequest): number {
  const { cost = 1 } = input;
  if (!Number.isInteger(cost) || cost < 0) throw new RangeError(`a request costs a whole number, not ${cost}`);
  return cost;
}
