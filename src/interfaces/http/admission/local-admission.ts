import type { AdmissionLimits } from './account-admission';
import {
  type Admitted,
  type AdmissionGate,
  LeftTheQueue,
  tooManyInFlight,
  TurnWaits,
  type WhenGone,
} from './admission-gate';
import { AdmissionScheduler } from './admission-scheduler';
import type { Refusal, RequestCost, Waited } from '../../../cluster/admission-terms';
import type { FairShareLimits } from './fair-share';
import { LoopRoom } from './loop-room';

type Settled = { readonly waited: Waited } | { readonly refusal: Refusal };

/** The gate of a process that serves alone (WEB_CONCURRENCY=1): the counts live here. */
export class LocalAdmission implements AdmissionGate {
  readonly waits = new TurnWaits();
  private readonly scheduler: AdmissionScheduler<number>;
  /** Waiting requests' answers, by holder. */
  private readonly waiting = new Map<number, (settled: Settled) => void>();
  /** What the scheduler said of the entering request before it returned (no wait: no promise). */
  private settledAtOnce: { readonly holder: number; readonly settled: Settled } | null = null;
  private nextHolder = 0;

  constructor(
    readonly limits: AdmissionLimits,
    readonly share: FairShareLimits,
    private readonly room = new LoopRoom(),
  ) {
    const settle = (holder: number, settled: Settled) => {
      const answer = this.waiting.get(holder);
      if (answer === undefined) this.settledAtOnce = { holder, settled };
      this.waiting.delete(holder);
      answer?.(settled);
    };
    this.scheduler = new AdmissionScheduler(limits, share, {
      run: (holder, waited) => settle(holder, { waited }),
      refuse: (holder, refusal) => settle(holder, { refusal }),
    });
  }

  enter(accountId: string, whenGone: WhenGone, cost: RequestCost): Promise<Admitted> {
    const holder = this.nextHolder++;
    this.scheduler.enter(accountId, holder, cost);
    const atOnce = this.settledAtOnceFor(holder);
    if (atOnce) return this.afterTurn(holder, atOnce, whenGone, cost);
    // Waiting for its account's place, its pace or the instance: settled once the scheduler answers.
    return new Promise<Admitted>((resolve, reject) => {
      this.waiting.set(holder, (settled) => resolve(this.afterTurn(holder, settled, whenGone, cost)));
      whenGone(() => {
        if (!this.waiting.delete(holder)) return;
        this.scheduler.leave(holder);
        reject(new LeftTheQueue());
      });
    });
  }

  /** The scheduler's answer for `holder`: refused, or admitted once the loop has room for its weight. */
  private async afterTurn(holder: number, settled: Settled, whenGone: WhenGone, cost: RequestCost): Promise<Admitted> {
    if ('refusal' in settled)
      throw settled.refusal === 'busy' ? this.waits.refused(cost.weight) : tooManyInFlight(this.limits);
    const leave = () => this.scheduler.leave(holder);
    const loopMs = this.room.holds(cost.weight) ? await this.room.afterTurn(cost.weight, whenGone, leave) : 0;
    return this.waits.admitted(leave, settled.waited, loopMs, cost.weight);
  }

  /** The instance's work now: weight running, requests waiting for it (for its gauges). */
  get load(): { readonly runningWeight: number; readonly queued: number } {
    return this.scheduler.load;
  }

  /** What the scheduler said of `holder` while it entered, if it said it then (read once). */
  private settledAtOnceFor(holder: number): Settled | null {
    const atOnce = this.settledAtOnce;
    this.settledAtOnce = null;
    return atOnce?.holder === holder ? atOnce.settled : null;
  }
}
