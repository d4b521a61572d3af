/** Request counters per key and fixed window, shared by every service process. */
export interface RateCounterStore {
  /**
   * Counts one request in the window atomically, in one round trip, and answers the count after it:
   * concurrent requests in any process are all counted and each sees its own count.
   */
  hit(key: string, windowStart: Date): Promise<number>;
  /** Forgets windows that started before `before`. */
  deleteWindowsBefore(before: Date): Promise<void>;
}
