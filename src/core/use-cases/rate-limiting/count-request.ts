import { decide, fixedWindow, type RateLimitDecision, type RateLimitPolicy } from '../../domain/rate-limit';
import type { RateCounterStore } from '../../ports/rate-counter-store';
import type { WallClock } from '../../ports/wall-clock';

/** Windows are at most this long; counters older than this are over in every policy. */
const MAX_WINDOW_SECONDS = 60;
const RETENTION_MS = 2 * MAX_WINDOW_SECONDS * 1000;
const SWEEP_EVERY_MS = 60_000;

/** Counts a request against a policy for one key (an API key, a client address) and decides on it. */
export class CountRequest {
  private nextSweepAt = 0;

  constructor(
    private readonly counters: RateCounterStore,
    private readonly clock: WallClock,
  ) {}

  async execute(input: { readonly key: string; readonly policy: RateLimitPolicy }): Promise<RateLimitDecision> {
    const { policy } = input;
    if (policy.windowSeconds > MAX_WINDOW_SECONDS) throw new RangeError(`rate-limit windows are at most ${MAX_WINDOW_SECONDS} s`);
    const now = this.clock.now();
    const window = fixedWindow(now, policy.windowSeconds);
    const count = await this.counters.hit(input.key, window.start);
    await this.sweep(now);
    return decide(policy, count, window.resetSeconds);
  }

  /** Old windows are deleted opportunistically: at most once a minute per process, by whichever request comes. */
  private async sweep(now: Date): Promise<void> {
    if (now.getTime() < this.nextSweepAt) return;
    this.nextSweepAt = now.getTime() + SWEEP_EVERY_MS;
    await this.counters.deleteWindowsBefore(new Date(now.getTime() - RETENTION_MS));
  }
}
