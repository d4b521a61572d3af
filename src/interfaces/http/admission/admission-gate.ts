import { Problem } from '../problem';
import type { AdmissionLimits } from './account-admission';
import type { RequestCost, Waited } from '../../../cluster/admission-terms';
import { type WeightClass, weightClassOf } from './request-weights';

/** Hears once that the request's client went away (its response closed before it was sent). */
export type WhenGone = (listener: () => void) => void;

/** Lets the next request run: call once, when the request's work is done. */
export type Leave = () => void;

/** A request that may run: how long it waited for its turn, and how to let the next one run. */
export interface Admitted extends Waited {
  /** For room on this process's event loop, after its turn (heavier requests only: loop-room.ts). */
  readonly loopMs: number;
  readonly leave: Leave;
}

/**
 * Admits each API request to run (admission-scheduler.ts): at once while its account and the
 * instance have room, else in its turn, or refused: `429 too_many_requests_in_flight` when its
 * account's queue is full, `503 server_busy` when the instance's is. A request whose client goes
 * away while it waits leaves having done nothing.
 */
export interface AdmissionGate {
  readonly limits: AdmissionLimits;
  /** The requests that waited, and how long, and those shed, since the process started (for its metrics). */
  readonly waits: TurnWaits;
  enter(accountId: string, whenGone: WhenGone, cost: RequestCost): Promise<Admitted>;
}

/** Requests and seconds, for one reason and weight class of waiting. */
interface Tally {
  requests: number;
  seconds: number;
}

/**
 * Why requests waited: their account's requests in flight, its pace, the instance's work, or room on
 * the process's event loop.
 */
export type WaitReason = 'in_flight' | 'pace' | 'busy' | 'loop';

/** What a gate's requests waited for, by reason and weight class, and how many were shed. */
export class TurnWaits {
  readonly waited = new Map<`${WaitReason}/${WeightClass}`, Tally>();
  readonly shed = new Map<WeightClass, number>();

  /** The request runs after the waits of `waited` and `loopMs`: they are counted. */
  admitted(leave: Leave, waited: Waited, loopMs: number, weight: number): Admitted {
    const { queuedMs, pacedMs, busyMs } = waited;
    const weightClass = weightClassOf(weight);
    this.tally('in_flight', weightClass, queuedMs);
    this.tally('pace', weightClass, pacedMs);
    this.tally('busy', weightClass, busyMs);
    this.tally('loop', weightClass, loopMs);
    return { leave, queuedMs, pacedMs, busyMs, loopMs };
  }

  /** The request was refused for the instance's work (503 server_busy): counted. */
  refused(weight: number): Problem {
    const weightClass = weightClassOf(weight);
    this.shed.set(weightClass, (this.shed.get(weightClass) ?? 0) + 1);
    return serverBusy();
  }

  private tally(reason: WaitReason, weightClass: WeightClass, ms: number): void {
    if (ms <= 0) return;
    const key = `${reason}/${weightClass}` as const;
    const tally = this.waited.get(key) ?? { requests: 0, seconds: 0 };
    tally.requests++;
    tally.seconds += ms / 1000;
    this.waited.set(key, tally);
  }
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

/** How long a shed client waits: the instance's queue moves within about that. */
const BUSY_RETRY_AFTER_SECONDS = 1;

function serverBusy(): Problem {
  return new Problem(
    503,
    'server_busy',
    'The service has more requests waiting than it takes at once, over every account; this one was not run. ' +
      `Retry after ${BUSY_RETRY_AFTER_SECONDS} s.`,
    {},
    { 'Retry-After': String(BUSY_RETRY_AFTER_SECONDS) },
  );
}

/** A waiting request gave up before its turn: nothing ran, and no answer can reach its client. */
export class LeftTheQueue extends Error {
  constructor() {
    super('the client went away while its request waited for its turn');
  }
}
