/** A quota of requests per fixed window, named as the RateLimit-Policy header names it. */
export interface RateLimitPolicy {
  readonly name: string;
  readonly quota: number;
  readonly windowSeconds: number;
}

/** What one counted request may do, and what the client is told about its allowance. */
export interface RateLimitDecision {
  readonly allowed: boolean;
  readonly remaining: number;
  /** Whole seconds until the window ends and the allowance is whole again (at least 1). */
  readonly resetSeconds: number;
}

/** A window of a policy: when it started and ends, and whole seconds left of it (at least 1). */
export interface Window {
  readonly start: Date;
  readonly end: Date;
  readonly resetSeconds: number;
}

/** Windows are aligned to the epoch, so every process puts a request in the same window. */
export function fixedWindow(now: Date, windowSeconds: number): Window {
  if (!Number.isInteger(windowSeconds) || windowSeconds < 1)
    throw new RangeError(`a rate-limit window is a whole number of seconds, not ${windowSeconds}`);
  const windowMs = windowSeconds * 1000;
  const startMs = Math.floor(now.getTime() / windowMs) * windowMs;
  return {
    start: new Date(startMs),
    end: new Date(startMs + windowMs),
    resetSeconds: Math.max(1, Math.ceil((startMs + windowMs - now.getTime()) / 1000)),
  };
}
