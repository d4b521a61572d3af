import { Problem } from '../problem';
import type { AdmissionLimits } from './account-admission';

/** Hears once that the request's client went away (its response closed before it was sent). */
export type WhenGone = (listener: () => void) => void;

/** Lets the next request of the account run: call once, when the request's work is done. */
export type Leave = () => void;

/**
 * Admits each API request of an account to run: at once while fewer than the account's limit
 * run, in arrival order once one of them is done, or refused (`429 too_many_requests_in_flight`)
 * when the account's queue is full too. A request whose client goes away while it waits leaves
 * the queue having done nothing.
 */
export interface AdmissionGate {
  readonly limits: AdmissionLimits;
  enter(accountId: string, whenGone: WhenGone): Promise<Leave>;
}

/** How long a refused client waits before trying again: one of its running requests is likely done by then. */
const RETRY_AFTER_SECONDS = 1;

export function tooManyInFlight(limits: AdmissionLimits): Problem {
  return new Problem(
    429,
    'too_many_requests_in_flight',
    `This account already has ${limits.running} requests running and ${limits.queued} waiting (all its API keys ` +
      `together); retry after ${RETRY_AFTER_SECONDS} s, or send fewer at once.`,
    { limit: limits.running + limits.queued },
    { 'Retry-After': String(RETRY_AFTER_SECONDS) },
  );
}

/** A waiting request gave up before its turn: nothing ran, and no answer can reach its client. */
export class LeftTheQueue extends Error {
  constructor() {
    super('the client went away while its request waited for its turn');
  }
}
