/** How many requests of one account run at once, and how many more may wait for their turn. */
export interface AdmissionLimits {
  readonly running: number;
  readonly queued: number;
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

/**
 * The requests of each account in flight, counted by whoever holds this (a process alone, or a
 * cluster's primary for every worker): at most `running` of an account at once, the next `queued`
 * waiting in arrival order, the rest refused. Holders name requests (`H`); nothing here waits or
 * sends, so the one rule serves both the in-process gate and the primary's.
 */
export class AccountAdmission<H> {
  private readonly accounts = new Map<string, AccountLoad<H>>();
  private readonly accountOf = new Map<H, string>();

  constructor(private readonly limits: AdmissionLimits) {
    for (const [name, value] of Object.entries(limits))
      if (!Number.isInteger(value) || value < (name === 'running' ? 1 : 0))
        throw new RangeError(`admission limit ${name} must be a whole number, not ${value}`);
  }

  enter(accountId: string, holder: H): Entry {
    const load = this.accounts.get(accountId) ?? { running: new Set<H>(), queue: [] };
    if (load.running.size < this.limits.running) load.running.add(holder);
    else if (load.queue.length < this.limits.queued) load.queue.push(holder);
    else return 'refused';
    this.accounts.set(accountId, load);
    this.accountOf.set(holder, accountId);
    return load.running.has(holder) ? 'running' : 'queued';
  }

  /**
   * The request is done, or gave up waiting: its place goes to the next waiting one of its account,
   * which is returned (null when none waits or it was not running).
   */
  leave(holder: H): H | null {
    const accountId = this.accountOf.get(holder);
    if (accountId === undefined) return null;
    this.accountOf.delete(holder);
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
    const leaving = [...this.accountOf.keys()].filter(gone);
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
    const accountId = this.accountOf.get(holder);
    return accountId !== undefined && (this.accounts.get(accountId)?.running.has(holder) ?? false);
  }
}
