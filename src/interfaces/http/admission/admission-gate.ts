import { Problem } from '../problem';
import type { AdmissionLimits } from './account-admission';

/** Hears once that the request's client went away (its response closed before it was sent). */
export type WhenGone = (listener: () => void) => void;

/** Lets the next request of the account run: call once, when the request's work is done. */
export type Leave = () => void;

/** A request that may run: how long it waited for its turn, and how to let the next one run. */
export interface Admitted {
  readonly leave: Leave;
  /** Milliseconds it waited behind its account's requests in flight. */
  readonly queuedMs: number;
  /** Milliseconds it then waited for its account's pace. */
  readonly pacedMs: number;
}

/**
 * Admits each API request of an account to run: at once while fewer than the account's limit
 * run, in arrival order once one of them is done, or refused (`429 too_many_requests_in_flight`)
 * when the account's queue is full too; then starts it when its account's pace allows. A request
 * whose client goes away while it waits leaves having done nothing.
 */
export interface AdmissionGate {
  readonly limits: AdmissionLimits;
  /** The requests that waited, and how long, since the process started (for its metrics). */
  readonly waits: TurnWaits;
  /** `cost`: what the request counts as against its account's rate limit (a page by its size). */
  enter(accountId: string, whenGone: WhenGone, cost?: number): Promise<Admitted>;
}

/** What a gate's requests waited for: their account's requests in flight, and its pace. */
export class TurnWaits {
  readonly queued = { requests: 0, seconds: 0 };
  readonly paced = { requests: 0, seconds: 0 };

  /**
   * The request may run after `queuedMs` behind its account's running ones: it starts once its pace
   * allows (after `delayMs`), and its waits are counted. No wait, no promise.
   */
  start(leave: Leave, queuedMs: number, delayMs: number, whenGone: WhenGone): Admitted | Promise<Admitted> {
    tally(this.queued, queuedMs);
    if (delayMs <= 0) return { leave, queuedMs, pacedMs: 0 };
    return paced(delayMs, whenGone, leave).then((pacedMs) => {
      tally(this.paced, pacedMs);
      return { leave, queuedMs, pacedMs };
    });
  }
}

function tally(waits: { requests: number; seconds: number }, ms: number): void {
  if (ms <= 0) return;
  waits.requests++;
  waits.seconds += ms / 1000;
}

/**
 * Waits out a running request's pace, and says how long it waited (ms). Its client gone meanwhile,
 * it leaves (giving its place to the next) and rejects with LeftTheQueue: nothing ran.
 */
async function paced(delayMs: number, whenGone: WhenGone, leave: Leave): Promise<number> {
  const from = performance.now();
  await new Promise<void>((resolve, reject) => {
    let started = false;
    const timer = setTimeout(() => {
      started = true;
      resolve();
    }, delayMs);
    // Heard at the end of every answer too: by then the request has started, and leaves when done.
    whenGone(() => {
      if (started) return;
      clearTimeout(timer);
      leave();
      reject(new LeftTheQueue());
    });
  });
  return performance.now() - from;
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
