import type { RateLimitDecision, RateLimitPolicy } from '../../domain/rate-limit';

/** One request to count: whose (`key`), against which policy, and what it costs (1 unless said). */
export interface CountedRequest {
  readonly key: string;
  readonly policy: RateLimitPolicy;
  readonly cost?: number;
}

/**
 * Counts a request against its policy and decides on it: CountRequest in the shared counters of
 * every process, or CountInProcess in this process's memory alone.
 */
export interface RequestCounter {
  execute(input: CountedRequest): RateLimitDecision | Promise<RateLimitDecision>;
}
