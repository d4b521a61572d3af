/** Request counters per key and fixed window, shared by every service process. */
export interface RateCounterStore {
  /**
   * Adds `requests` to the key's count in the window atomically, in one round trip, and answers the
   * count after it: concurrent additions in any process all count and each sees its own total.
   */
  hit(key: string, windowStart: Date, requests: number): Promise<number>;
  /** Forgets windows that started before `before`. */
  deleteWindowsBefore(before: Date): Promise<void>;
}
