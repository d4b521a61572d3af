/** The instance's work at once: the weight of the requests running, and how many more may wait. */
export interface FairShareLimits {
  /** Weight of the requests that run at once, over every account (a request's weight: request-weights.ts). */
  readonly running: number;
  /** Requests that may wait for the instance, over every account; past it, one is shed. */
  readonly queued: number;
  /**
   * The weight running, its own included, within which a heavier request (weight 2 or more) may
   * start; at most `running`, and `running` when not given. Ordinary requests fill the rest: they
   * wait for a database connection a moment, where a heavier one would hold the event loop.
   */
  readonly heavyRunning?: number;
}

/**
 * One process of the default pool (10 connections) alone: three times its connections' ordinary
 * requests (docs/decisions.md#fair-share-of-the-instance), heavier ones within the connections' 10,
 * and 20 turns of those waiting.
 */
export const DEFAULT_FAIR_SHARE: FairShareLimits = { running: 30, heavyRunning: 10, queued: 200 };

/** What a change did: the requests that now run (in their order), and those shed (to be answered 503). */
export interface ShareChange<H> {
  readonly started: readonly H[];
  readonly shed: readonly H[];
}

/** A request waiting for the instance. */
interface Waiting<H> {
  readonly holder: H;
  readonly weight: number;
  /** Its place in arrival order, which breaks ties. */
  readonly arrival: number;
}

/** An account's share of the instance now: the weight of its requests running, and those waiting. */
interface AccountShare<H> {
  runningWeight: number;
  /** Oldest first. */
  readonly waiting: Waiting<H>[];
}

function goesBefore<H>(account: AccountShare<H>, head: Waiting<H>, other: AccountShare<H>, otherHead: Waiting<H>) {
  if (account.runningWeight !== other.runningWeight) return account.runningWeight < other.runningWeight;
  if (account.waiting.length !== other.waiting.length) return account.waiting.length < other.waiting.length;
  return head.arrival < otherHead.arrival;
}

/**
 * The instance's work shared between accounts once it is saturated. At most `running` weight runs
 * at once, a heavier request (weight 2 or more) only within `heavyRunning` of it (a request heavier
 * than that runs alone); the rest wait, and the next to run is the oldest
 * request of the account with the least weight running now (then with fewer waiting), so an account
 * with one request waiting goes ahead of every account that has work running or more waiting,
 * however many there are, and a heavy account's requests wait behind its own. The head of that
 * order waits until it fits, holding the rest back, so a heavy request is not starved by light ones.
 * At most `queued` requests wait; past that, the newest of the account with the most waiting is
 * shed, or the arriving one when no account has more waiting than its own. Holders name requests
 * (`H`); nothing here waits or sends.
 */
export class FairShare<H> {
  private readonly accounts = new Map<string, AccountShare<H>>();
  /** Each request held, running or waiting: its account and weight. */
  private readonly held = new Map<
    H,
    { readonly accountId: string; readonly weight: number; running: boolean; besideHead: boolean }
  >();
  private runningWeight = 0;
  /** The weight running that started beside a head waiting for room: at most the room the head leaves. */
  private besideHeadWeight = 0;
  private waitingCount = 0;
  private arrivals = 0;
  private readonly heavyRunning: number;

  constructor(readonly limits: FairShareLimits) {
    for (const [name, value] of Object.entries(limits))
      if (!Number.isInteger(value) || value < (name === 'queued' ? 0 : 1))
        throw new RangeError(`fair share limit ${name} must be a whole number, not ${value}`);
    this.heavyRunning = limits.heavyRunning ?? limits.running;
    if (this.heavyRunning > limits.running)
      throw new RangeError(`fair share limit heavyRunning must be at most running (${limits.running})`);
  }

  /** `weight`: what the request costs the instance, from 1 (an ordinary request) up. */
  enter(accountId: string, holder: H, weight: number): ShareChange<H> {
    const w = Math.max(1, weight);
    const account = this.accounts.get(accountId) ?? { runningWeight: 0, waiting: [] };
    this.accounts.set(accountId, account);
    account.waiting.push({ holder, weight: w, arrival: this.arrivals++ });
    this.held.set(holder, { accountId, weight: w, running: false, besideHead: false });
    this.waitingCount++;
    const started = this.dispatch();
    if (this.waitingCount <= this.limits.queued) return { started, shed: [] };
    // Nothing started (the queue was within its bound before): the arriving request waits, one too many.
    const shed = this.longestQueueTail(accountId) ?? holder;
    return { started: [...started, ...this.leave(shed)], shed: [shed] };
  }

  /** The request is done, or gave up waiting (or was shed): those now running in its place, in their order. */
  leave(holder: H): H[] {
    const request = this.held.get(holder);
    if (!request) return [];
    this.held.delete(holder);
    const account = this.accounts.get(request.accountId);
    if (!account) return [];
    if (request.running) {
      account.runningWeight -= request.weight;
      this.runningWeight -= request.weight;
      if (request.besideHead) this.besideHeadWeight -= request.weight;
    } else {
      account.waiting.splice(
        account.waiting.findIndex((each) => each.holder === holder),
        1,
      );
      this.waitingCount--;
    }
    if (account.runningWeight === 0 && account.waiting.length === 0) this.accounts.delete(request.accountId);
    return this.dispatch();
  }

  /** The weight running now and the requests waiting (for gauges and tests). */
  get load(): { readonly runningWeight: number; readonly queued: number } {
    return { runningWeight: this.runningWeight, queued: this.waitingCount };
  }

  private fits(weight: number): boolean {
    return this.runningWeight === 0 || this.runningWeight + weight <= this.boundFor(weight);
  }

  /** The weight running, a request's own included, within which it may start. */
  private boundFor(weight: number): number {
    return weight > 1 ? this.heavyRunning : this.limits.running;
  }

  /**
   * Starts the waiting requests in their order while the next fits. One that does not is the head:
   * it waits for room, and what fits beside it without taking that room starts meanwhile.
   */
  private dispatch(): H[] {
    const started: H[] = [];
    for (let head = this.nextWithRoom(); head; head = this.nextWithRoom()) {
      if (this.fits(head.request.weight)) {
        started.push(this.start(head, false));
        continue;
      }
      const room = this.roomBeside(head.request.weight);
      // A heavier request beside keeps to its own bound too, whatever room ordinary ones have.
      const beside = this.next(room, Math.min(room, this.heavyRunning - this.runningWeight));
      if (!beside) break;
      started.push(this.start(beside, true));
    }
    return started;
  }

  /**
   * next(), unless the share is full: then nothing fits, not even beside a head, and the walk of
   * every account waiting is spared (a saturated share's every request would walk them twice).
   */
  private nextWithRoom(): { account: AccountShare<H>; request: Waiting<H> } | null {
    return this.runningWeight < this.limits.running ? this.next() : null;
  }

  /**
   * What may start beside a head of `headWeight` that waits: the weight that fits now, less what the
   * head needs once the work that started before it is done (what started beside it still running).
   */
  private roomBeside(headWeight: number): number {
    const fitsNow = this.limits.running - this.runningWeight;
    const leftByHead = this.boundFor(headWeight) - headWeight - this.besideHeadWeight;
    return Math.min(fitsNow, leftByHead);
  }

  private start({ account, request }: { account: AccountShare<H>; request: Waiting<H> }, besideHead: boolean): H {
    account.waiting.shift();
    this.waitingCount--;
    account.runningWeight += request.weight;
    this.runningWeight += request.weight;
    if (besideHead) this.besideHeadWeight += request.weight;
    const held = this.held.get(request.holder);
    if (held) {
      held.running = true;
      held.besideHead = besideHead;
    }
    return request.holder;
  }

  /**
   * The oldest waiting request of the account with the least weight running; of those, the account
   * with fewer waiting, then the older request. With `atMost`, only of the requests of that weight or
   * less; of the heavier ones (weight 2 or more), of `heavyAtMost` or less.
   */
  private next(atMost = Infinity, heavyAtMost = atMost): { account: AccountShare<H>; request: Waiting<H> } | null {
    if (this.waitingCount === 0 || atMost < 1) return null;
    let next: { account: AccountShare<H>; request: Waiting<H> } | null = null;
    for (const account of this.accounts.values()) {
      const head = account.waiting[0];
      if (!head || head.weight > (head.weight > 1 ? heavyAtMost : atMost)) continue;
      if (next === null || goesBefore(account, head, next.account, next.request)) next = { account, request: head };
    }
    return next;
  }

  /**
   * The request to shed when one too many waits: the newest of an account with more waiting than the
   * arriving one's account (whose newest is the arriving request, shed when none has more).
   */
  private longestQueueTail(arriving: string): H | null {
    let longest = this.accounts.get(arriving)?.waiting.length ?? 0;
    let tail: H | null = null;
    for (const account of this.accounts.values())
      if (account.waiting.length > longest) {
        longest = account.waiting.length;
        tail = account.waiting[account.waiting.length - 1]?.holder ?? null;
      }
    return tail;
  }
}
