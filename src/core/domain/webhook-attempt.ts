/** Why an attempt had no answer, or none that counts, as the deliveries listing names it. */
export const ATTEMPT_ERRORS = [
  'timeout',
  'refused',
  'tls',
  'dns',
  'address_not_allowed',
  'redirect',
  'too_large',
  'network',
] as const;
export type AttemptError = (typeof ATTEMPT_ERRORS)[number];

/** What one POST of a message to its endpoint came to: the attempt row, and what decides the next. */
export interface AttemptResult {
  /** The answer's HTTP status; null when no answer's head arrived. */
  readonly status: number | null;
  /** Null for an answer read whole; set with a status when reading it went wrong after its head. */
  readonly error: AttemptError | null;
  readonly durationMs: number;
  /** The first KiB of the answer's body, as text ('' for none). */
  readonly answer: string;
  /** The answer's Retry-After as whole seconds from the attempt, or null when it has none that reads. */
  readonly retryAfterSeconds: number | null;
}

/** Only a 2xx delivers: the receiver said it took the message, whatever came after its status line. */
export const isDelivered = (result: AttemptResult): boolean =>
  result.status !== null && result.status >= 200 && result.status <= 299;
