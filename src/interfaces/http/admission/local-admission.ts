import { AccountAdmission, type AdmissionLimits } from './account-admission';
import { type AdmissionGate, type Leave, LeftTheQueue, tooManyInFlight, type WhenGone } from './admission-gate';

/** The gate of a process that serves alone (WEB_CONCURRENCY=1): the counts live here. */
export class LocalAdmission implements AdmissionGate {
  private readonly rule: AccountAdmission<number>;
  /** Waiting requests' wake-ups, by holder. */
  private readonly waiting = new Map<number, () => void>();
  private nextHolder = 0;

  constructor(readonly limits: AdmissionLimits) {
    this.rule = new AccountAdmission(limits);
  }

  async enter(accountId: string, whenGone: WhenGone): Promise<Leave> {
    const holder = this.nextHolder++;
    const entry = this.rule.enter(accountId, holder);
    if (entry === 'refused') throw tooManyInFlight(this.limits);
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
    return () => this.wake(this.rule.leave(holder));
  }

  private wake(next: number | null): void {
    if (next === null) return;
    const resolve = this.waiting.get(next);
    this.waiting.delete(next);
    resolve?.();
  }
}
