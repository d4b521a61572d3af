import { AccountAdmission, type AdmissionLimits } from './account-admission';
import {
  type Admitted,
  type AdmissionGate,
  LeftTheQueue,
  tooManyInFlight,
  TurnWaits,
  type WhenGone,
} from './admission-gate';

/** The gate of a process that serves alone (WEB_CONCURRENCY=1): the counts live here. */
export class LocalAdmission implements AdmissionGate {
  readonly waits = new TurnWaits();
  private readonly rule: AccountAdmission<number>;
  /** Waiting requests' wake-ups, by holder. */
  private readonly waiting = new Map<number, () => void>();
  private nextHolder = 0;

  constructor(readonly limits: AdmissionLimits) {
    this.rule = new AccountAdmission(limits);
  }

  async enter(accountId: string, whenGone: WhenGone, cost = 1): Promise<Admitted> {
    const holder = this.nextHolder++;
    const entry = this.rule.enter(accountId, holder, cost);
    if (entry === 'refused') throw tooManyInFlight(this.limits);
    const arrived = performance.now();
    if (entry === 'queued') {
      await new Promise<void>((resolve, reject) => {
        this.waiting.set(holder, resolve);
        whenGone(() => {
          if (!this.waiting.delete(holder)) return;
          this.rule.leave(holder);
          reject(new LeftTheQueue());
        });
      });
    }
    const leave = () => this.wake(this.rule.leave(holder));
    const queuedMs = entry === 'queued' ? performance.now() - arrived : 0;
    return this.waits.start(leave, queuedMs, this.rule.startDelay(holder), whenGone);
  }

  private wake(next: number | null): void {
    if (next === null) return;
    const resolve = this.waiting.get(next);
    this.waiting.delete(next);
    resolve?.();
  }
}
