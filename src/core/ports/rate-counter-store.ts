import type { Window } from '../domain/rate-limit';

/** Counters per key and fixed window (requests, or bytes), shared by every service process. */
export interface RateCounterStore {
  /**
   * Adds `amount` to the key's count in the window atomically, in one round trip, and answers the
   * count after it: concurrent additions in any process all count and each sees its own total.
   */
  hit(key: string, window: Pick<Window, 'start' | 'end'>, amount: number): Promise<number>;
  /** Forgets the windows that are over at `now` (ended at or before it). */
  deleteWindowsOver(now: Date): Promise<void>;
}
