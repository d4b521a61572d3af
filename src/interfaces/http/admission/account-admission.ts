/** How many requests of one account run at once, how many more may wait for their turn, and how fast they start. */
export interface AdmissionLimits {
  readonly running: number;
  readonly queued: number;
  /**
   * Requests of one account (by their cost against its rate limit) that start a second, spread
   * evenly once its first `running` have started at once: its rate limit's quota. 0 (or none) leaves
   * them unpaced.
   */
  readonly startsPerSecond?: number;
}

/** Eight of an account's requests at once, a hundred more waiting (docs/decisions.md, "Requests in flight"). */
export const DEFAULT_ADMISSION_LIMITS: AdmissionLimits = { running: 8, queued: 100 };

/** What entering did: the request runs now, waits its turn, or is refused (its account's queue is full). */
export type Entry = 'running' | 'queued' | 'refused';

interface AccountLoad<H> {
  readonly running: Set<H>;
  /** Oldest first. */
  readonly queue: H[];
}

/** Accounts entered between two sweeps of the paces that have caught up with the clock. */
const SWEEP_PACES_EVERY = 1_000;

/** A request in flight: its account, what it costs against the account's rate limit, and its start by the pace. */
interface InFlight {
  readonly accountId: string;
  readonly cost: number;
  /** When it starts, and what it moved its account's pace on by (once `startDelay` was asked). */
  start?: { readonly at: number; readonly paceTaken: number };
}

/**
 * The requests of each account in flight, counted by whoever holds this (a process alone, or a
 * cluster's primary for every worker): at most `running` of an account at once, the next `queued`
 * waiting in arrival order, the rest refused. A request that may run starts when its account's
 * pace allows (`startDelay`). Holders name requests (`H`); nothing here waits or sends, so the one
 * rule serves both the in-process gate and the primary's.
 */
export class AccountAdmission<H> {
  private readonly accounts = new Map<string, AccountLoad<H>>();
  private readonly inFlight = new Map<H, InFlight>();
  /**
   * When, by its pace, each account's next request may start (ms on the rule's clock): kept past its
   * requests, until that time has come, so that requests sent one after another are paced too.
   */
  private readonly paceDue = new Map<string, number>();
  private enteredSinceSweep = 0;
  /** Milliseconds between two starts of an account's requests, by cost (0: unpaced). */
  private readonly interval: number;
  /** How far ahead of its pace an account's request may start: its first `running` start at once. */
  private readonly burst: number;

  constructor(
    private readonly limits: AdmissionLimits,
    /** The clock of the pace, in milliseconds. */
    private readonly now: () => number = performance.now.bind(performance),
  ) {
    for (const [name, value] of Object.entries(limits))
      if ((value !== undefined && !Number.isInteger(value)) || value < (name === 'running' ? 1 : 0))
        throw new RangeError(`admission limit ${name} must be a whole number, not ${value}`);
    this.interval = limits.startsPerSecond ? 1000 / limits.startsPerSecond : 0;
    this.burst = (limits.running - 1) * this.interval;
  }

  /** `cost`: what the request counts as against its account's rate limit (a page by its size). */
  enter(accountId: string, holder: H, cost = 1): Entry {
    if (++this.enteredSinceSweep >= SWEEP_PACES_EVERY) this.sweepPaces();
    const load = this.accounts.get(accountId) ?? { running: new Set<H>(), queue: [] };
    if (load.running.size < this.limits.running) load.running.add(holder);
    else if (load.queue.length < this.limits.queued) load.queue.push(holder);
    else return 'refused';
    this.accounts.set(accountId, load);
    this.inFlight.set(holder, { accountId, cost });
    return load.running.has(holder) ? 'running' : 'queued';
  }

  /**
   * Milliseconds a request that may now run waits before it starts, by its account's pace: a
   * virtual-scheduling GCRA (ITU-T I.371), each start moving the account's due time on by the
   * request's cost over its rate, and a start allowed `running` requests ahead of it. Ask once,
   * when the holder runs (entered `running`, or returned by `leave`).
   */
  startDelay(holder: H): number {
    const request = this.inFlight.get(holder);
    if (!request || this.interval === 0) return 0;
    const now = this.now();
    const due = Math.max(this.paceDue.get(request.accountId) ?? now, now);
    // As the rate limit counts it: never more than a second's quota.
    const paceTaken = Math.min(request.cost, this.limits.startsPerSecond ?? 1) * this.interval;
    this.paceDue.set(request.accountId, due + paceTaken);
    // A timer waits at least a millisecond: less (a pace of a million a second) is no wait.
    const ahead = due - this.burst - now;
    const delay = ahead >= 1 ? ahead : 0;
    request.start = { at: now + delay, paceTaken };
    return delay;
  }

  /** Accounts whose pace is kept: ahead of the clock, or not yet swept (for its tests). */
  get pacedAccounts(): number {
    return this.paceDue.size;
  }

  /** Forgets the paces that have caught up with the clock: they hold no one back. */
  private sweepPaces(): void {
    this.enteredSinceSweep = 0;
    const now = this.now();
    for (const [accountId, due] of this.paceDue) if (due <= now) this.paceDue.delete(accountId);
  }

  /**
   * The request is done, or gave up waiting: its place goes to the next waiting one of its account,
   * which is returned (null when none waits or it was not running).
   */
  leave(holder: H): H | null {
    const request = this.inFlight.get(holder);
    if (request === undefined) return null;
    const { accountId, start } = request;
    this.inFlight.delete(holder);
    // Gone before its start (its client left while it waited for its pace): its turn is given back.
    const due = this.paceDue.get(accountId);
    if (start && due !== undefined && this.now() < start.at) this.paceDue.set(accountId, due - start.paceTaken);
    const load = this.accounts.get(accountId);
    if (!load) return null;
    let next: H | null = null;
    if (load.running.delete(holder)) {
      next = load.queue.shift() ?? null;
      if (next !== null) load.running.add(next);
    } else {
      load.queue.splice(load.queue.indexOf(holder), 1);
    }
    if (load.running.size === 0 && load.queue.length === 0) this.accounts.delete(accountId);
    return next;
  }

  /** Every holder that `gone` names leaves (a worker that exited); those admitted instead. */
  leaveAll(gone: (holder: H) => boolean): H[] {
    const leaving = [...this.inFlight.keys()].filter(gone);
    // Queued ones first, so that none of them is admitted in a running one's place and then dropped.
    const ordered = [
      ...leaving.filter((holder) => !this.isRunning(holder)),
      ...leaving.filter((h) => this.isRunning(h)),
    ];
    const admitted: H[] = [];
    for (const holder of ordered) {
      const next = this.leave(holder);
      if (next !== null) admitted.push(next);
    }
    return admitted;
  }

  /** Requests of the account running now and waiting (for its gauges and tests). */
  loadOf(accountId: string): { readonly running: number; readonly queued: number } {
    const load = this.accounts.get(accountId);
    return { running: load?.running.size ?? 0, queued: load?.queue.length ?? 0 };
  }

  private isRunning(holder: H): boolean {
    const accountId = this.inFlight.get(holder)?.accountId;
    return accountId !== undefined && (this.accounts.get(accountId)?.running.has(holder) ?? false);
  }
}
