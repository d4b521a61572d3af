/** The instance's work at once: the weight of the requests running, and how many more may wait. */
export interface FairShareLimits {
  /** Weight of the requests that run at once, over every account (a request's weight: request-weights.ts). */
  readonly running: number;
  /** Requests that may wait for the instance, over every account; past it, one is shed. */
  readonly queued: number;
}

/** One process of the default pool (10 connections) alone: its connections' work, and 20 turns of it waiting. */
export const DEFAULT_FAIR_SHARE: FairShareLimits = { running: 10, queued: 200 };

/** What a change did: the requests that now run (in their order), and those shed (to be answered 503). */
export interface ShareChange<H> {
  readonly started: readonly H[];
  readonly shed: readonly H[];
}

/** A request waiting for the instance: its start tag orders it against other accounts' requests. */
interface Waiting<H> {
  readonly holder: H;
  readonly startTag: number;
  readonly weight: number;
  /** Its place in arrival order, which breaks the last ties. */
  readonly arrival: number;
}

/**
 * Whether `head` (of `queue`) goes before `other` (of `otherQueue`): the lesser start tag, then the
 * account with fewer waiting (tied tags are accounts that have had equal service: the one asking
 * less goes first), then the earlier.
 */
function goesBefore<H>(
  head: Waiting<H>,
  queue: readonly unknown[],
  other: Waiting<H>,
  otherQueue: readonly unknown[],
): boolean {
  if (head.startTag !== other.startTag) return head.startTag < other.startTag;
  if (queue.length !== otherQueue.length) return queue.length < otherQueue.length;
  return head.arrival < other.arrival;
}

/** Accounts whose finish tags are kept, between two sweeps of those the virtual time has passed. */
const SWEEP_TAGS_EVERY = 1_000;

/**
 * The instance's share of work between accounts once it is saturated: start-time fair queuing
 * (Goyal, Vin and Cheng, 1996) over accounts, each request weighted by its cost known before it runs.
 * A request's start tag is the later of the virtual time and its account's last finish tag; its
 * finish tag adds its weight. The waiting request with the least start tag goes next, so an account
 * with one request waiting is served before the accounts that have been taking the instance, and
 * a heavy account waits behind its own work. At most `running` weight runs at once (a request
 * heavier than that runs alone); `queued` requests wait; past that, the newest request of the
 * account with the most waiting is shed, or the arriving one when no account has more than its own.
 * Holders name requests (`H`); nothing here waits or sends.
 */
export class FairShare<H> {
  private readonly running = new Map<H, number>();
  private runningWeight = 0;
  /** Each account's waiting requests, oldest first (their start tags rise). */
  private readonly waiting = new Map<string, Waiting<H>[]>();
  private readonly accountOf = new Map<H, string>();
  private waitingCount = 0;
  private arrivals = 0;
  /** The greatest start tag served: an account idle since then starts its next request there. */
  private virtualTime = 0;
  private readonly finishTags = new Map<string, number>();
  private enteredSinceSweep = 0;

  constructor(readonly limits: FairShareLimits) {
    for (const [name, value] of Object.entries(limits))
      if (!Number.isInteger(value) || value < (name === 'running' ? 1 : 0))
        throw new RangeError(`fair share limit ${name} must be a whole number, not ${value}`);
  }

  /** `weight`: what the request costs the instance, from 1 (an ordinary request) up. */
  enter(accountId: string, holder: H, weight: number): ShareChange<H> {
    if (++this.enteredSinceSweep >= SWEEP_TAGS_EVERY) this.sweepTags();
    const w = Math.max(1, weight);
    const startTag = Math.max(this.virtualTime, this.finishTags.get(accountId) ?? 0);
    this.finishTags.set(accountId, startTag + w);
    const queue = this.waiting.get(accountId) ?? [];
    queue.push({ holder, startTag, weight: w, arrival: this.arrivals++ });
    this.waiting.set(accountId, queue);
    this.accountOf.set(holder, accountId);
    this.waitingCount++;
    const started = this.dispatch();
    if (this.waitingCount <= this.limits.queued) return { started, shed: [] };
    // Nothing started (the queue was within its bound before): the arriving request waits, one too many.
    const shed = this.longestQueueTail(accountId) ?? holder;
    return { started: [...started, ...this.leave(shed)], shed: [shed] };
  }

  /** The request is done, or gave up waiting (or was shed): those now running in its place, in their order. */
  leave(holder: H): H[] {
    const weight = this.running.get(holder);
    if (weight !== undefined) {
      this.running.delete(holder);
      this.runningWeight -= weight;
      const started = this.dispatch();
      if (this.runningWeight === 0) this.forgetTags();
      return started;
    }
    const accountId = this.accountOf.get(holder);
    if (accountId === undefined) return [];
    this.accountOf.delete(holder);
    const queue = this.waiting.get(accountId) ?? [];
    const at = queue.findIndex((request) => request.holder === holder);
    const [left] = queue.splice(at, 1);
    this.waitingCount--;
    // The newest of the account left unserved: its next request starts where this one would have.
    if (left && at === queue.length) this.finishTags.set(accountId, left.startTag);
    if (queue.length === 0) this.waiting.delete(accountId);
    // The head may have left: the next one may fit where it did not.
    return at === 0 ? this.dispatch() : [];
  }

  /** The weight running now and the requests waiting (for gauges and tests). */
  get load(): { readonly runningWeight: number; readonly queued: number } {
    return { runningWeight: this.runningWeight, queued: this.waitingCount };
  }

  private fits(weight: number): boolean {
    return this.runningWeight === 0 || this.runningWeight + weight <= this.limits.running;
  }

  private start(holder: H, startTag: number, weight: number): void {
    this.virtualTime = Math.max(this.virtualTime, startTag);
    this.running.set(holder, weight);
    this.runningWeight += weight;
  }

  /** Starts the waiting requests by start tag while the next fits: a heavy head holds the rest back. */
  private dispatch(): H[] {
    const started: H[] = [];
    for (;;) {
      let next: { accountId: string; queue: Waiting<H>[]; request: Waiting<H> } | null = null;
      for (const [accountId, queue] of this.waiting) {
        const head = queue[0];
        if (head && (next === null || goesBefore(head, queue, next.request, next.queue)))
          next = { accountId, queue, request: head };
      }
      if (next === null || !this.fits(next.request.weight)) return started;
      const queue = this.waiting.get(next.accountId) ?? [];
      queue.shift();
      if (queue.length === 0) this.waiting.delete(next.accountId);
      this.accountOf.delete(next.request.holder);
      this.waitingCount--;
      this.start(next.request.holder, next.request.startTag, next.request.weight);
      started.push(next.request.holder);
    }
  }

  /**
   * The request to shed when one too many waits: the newest of an account with more waiting than the
   * arriving one's account (whose newest is the arriving request, shed when none has more).
   */
  private longestQueueTail(arriving: string): H | null {
    let longest = this.waiting.get(arriving)?.length ?? 0;
    let tail: H | null = null;
    for (const queue of this.waiting.values())
      if (queue.length > longest) {
        longest = queue.length;
        tail = queue[queue.length - 1]?.holder ?? null;
      }
    return tail;
  }

  /** Idle, no account is ahead of another: every tag is forgotten, as if each had just come. */
  private forgetTags(): void {
    this.finishTags.clear();
    this.virtualTime = 0;
  }

  /** Forgets the finish tags the virtual time has passed: they hold no account back. */
  private sweepTags(): void {
    this.enteredSinceSweep = 0;
    for (const [accountId, tag] of this.finishTags)
      if (tag <= this.virtualTime && !this.waiting.has(accountId)) this.finishTags.delete(accountId);
  }

  /** Accounts whose finish tag is kept (for its tests). */
  get taggedAccounts(): number {
    return this.finishTags.size;
  }
}
