// Waiting in tests for what a fixed sleep would only hope had happened: a row, a log line, a
// connection state. Every wait is bounded and, when it runs out, says what never came.

export interface WaitOptions {
  /** What is awaited, for the failure: "the statement to reach the database". */
  what: string;
  /** How long it may take before the test fails. */
  timeoutMs?: number;
  /** How often `waitFor` checks a condition that cannot announce itself. */
  intervalMs?: number;
}

const DEFAULT_TIMEOUT_MS = 5_000;
const DEFAULT_INTERVAL_MS = 10;

type Unmet = false | null | undefined;

/**
 * Checks `condition` until it gives something other than false, null or undefined, and answers that;
 * fails after `timeoutMs` naming `what`. A condition that throws fails the wait at once.
 */
export async function waitFor<T>(condition: () => T | Unmet | Promise<T | Unmet>, options: WaitOptions): Promise<T> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value !== false && value !== null && value !== undefined) return value;
    if (Date.now() >= deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${options.what}`);
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? DEFAULT_INTERVAL_MS));
  }
}

/** What `promise` (an event, a signal of the test's own) answers, or a failure naming `what` after `timeoutMs`. */
export async function within<T>(promise: Promise<T>, options: Omit<WaitOptions, 'intervalMs'>): Promise<T> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${options.what}`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** A promise the test resolves itself when something it watches has happened. */
export function signal<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}
