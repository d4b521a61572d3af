import { AccountAdmission, type AdmissionLimits } from './account-admission';
import { FairShare, type FairShareLimits } from './fair-share';
import type { Refusal, RequestCost, Waited } from '../../../cluster/admission-terms';

/** What the scheduler tells its holder: the request runs now, or is refused. */
export interface SchedulerEnds<H> {
  run(holder: H, waited: Waited): void;
  refuse(holder: H, refusal: Refusal): void;
}

type Stage = 'account' | 'pace' | 'share' | 'running';

interface Scheduled {
  readonly accountId: string;
  readonly weight: number;
  stage: Stage;
  /** When it entered its stage (ms on performance.now()). */
  since: number;
  queuedMs: number;
  pacedMs: number;
  timer?: NodeJS.Timeout;
}

/**
 * Each API request's way to its turn, for whoever holds the counts (a process alone, or a cluster's
 * primary for every worker): a place among its account's requests in flight (AccountAdmission),
 * then its account's pace, then its turn in the instance's work (FairShare). The holder hears once
 * that the request runs or is refused; a request that leaves (done, or its client gone) gives back
 * what it held, wherever it was.
 */
export class AdmissionScheduler<H> {
  private readonly accounts: AccountAdmission<H>;
  private readonly share: FairShare<H>;
  private readonly scheduled = new Map<H, Scheduled>();
  /** The request entering the fair share now: if it runs at once, it did not wait for the instance. */
  private entering: H | null = null;

  constructor(
    accountLimits: AdmissionLimits,
    shareLimits: FairShareLimits,
    private readonly ends: SchedulerEnds<H>,
  ) {
    this.accounts = new AccountAdmission(accountLimits);
    this.share = new FairShare(shareLimits);
  }

  enter(accountId: string, holder: H, { cost, weight }: RequestCost): void {
    const entry = this.accounts.enter(accountId, holder, cost);
    if (entry === 'refused') return this.ends.refuse(holder, 'in_flight');
    const request: Scheduled = {
      accountId,
      weight,
      stage: 'account',
      since: performance.now(),
      queuedMs: 0,
      pacedMs: 0,
    };
    this.scheduled.set(holder, request);
    if (entry === 'running') this.pace(holder, request, false);
  }

  /** The request is done, or its client gone: what it held goes to the next. Idempotent. */
  leave(holder: H): void {
    const request = this.scheduled.get(holder);
    if (!request) return;
    this.scheduled.delete(holder);
    clearTimeout(request.timer);
    if (request.stage === 'share' || request.stage === 'running')
      this.apply({ started: this.share.leave(holder), shed: [] });
    this.afterAccountPlace(this.accounts.leave(holder));
  }

  /** Every holder that `gone` names leaves (a worker that exited); the waiting ones first. */
  leaveAll(gone: (holder: H) => boolean): void {
    const leaving = [...this.scheduled].filter(([holder]) => gone(holder));
    leaving.sort(([, a], [, b]) => Number(a.stage === 'running') - Number(b.stage === 'running'));
    for (const [holder] of leaving) this.leave(holder);
  }

  /** The instance's work now: weight running, requests waiting for it (for gauges and tests). */
  get load(): { readonly runningWeight: number; readonly queued: number } {
    return this.share.load;
  }

  /** A request took a place among its account's in flight: it waits its pace, then its share. */
  private pace(holder: H, request: Scheduled, waited: boolean): void {
    const now = performance.now();
    if (waited) request.queuedMs = now - request.since;
    const delay = this.accounts.startDelay(holder);
    if (delay <= 0) return this.enterShare(holder, request, now);
    request.stage = 'pace';
    request.since = now;
    request.timer = setTimeout(() => {
      const paced = performance.now();
      request.pacedMs = paced - request.since;
      this.enterShare(holder, request, paced);
    }, delay);
  }

  private enterShare(holder: H, request: Scheduled, now: number): void {
    request.stage = 'share';
    request.since = now;
    this.entering = holder;
    try {
      this.apply(this.share.enter(request.accountId, holder, request.weight));
    } finally {
      this.entering = null;
    }
  }

  private apply({ started, shed }: { readonly started: readonly H[]; readonly shed: readonly H[] }): void {
    const now = performance.now();
    for (const holder of started) {
      const request = this.scheduled.get(holder);
      if (!request) continue;
      const busyMs = holder === this.entering ? 0 : now - request.since;
      request.stage = 'running';
      this.ends.run(holder, { queuedMs: request.queuedMs, pacedMs: request.pacedMs, busyMs });
    }
    for (const holder of shed) {
      // Shed from the share's queue: it holds nothing there any more, only its account's place.
      if (!this.scheduled.delete(holder)) continue;
      this.afterAccountPlace(this.accounts.leave(holder));
      this.ends.refuse(holder, 'busy');
    }
  }

  /** An account's place freed: the account's next waiting request (if any) goes on to its pace. */
  private afterAccountPlace(next: H | null): void {
    if (next === null) return;
    const request = this.scheduled.get(next);
    if (request) this.pace(next, request, true);
  }
}
