import { Counter, type Registry } from 'prom-client';
import type { SignInEvents, SignInOutcome, SignInPath } from '../../core/ports/sign-in-events';

/** `tns_sign_in_attempts_total`: attempts at a password by path and outcome (docs/operations.md, "Metrics"). */
export class SignInMetrics implements SignInEvents {
  private readonly attempts: Counter<'path' | 'outcome'>;

  constructor(registry: Registry) {
    this.attempts = new Counter({
      name: 'tns_sign_in_attempts_total',
      help:
        "Attempts at an account's password, by path (sign_in, password_change) and outcome (right, wrong, " +
        'locked; superseded: a password change that lost the race with another change of the hash).',
      labelNames: ['path', 'outcome'],
      registers: [registry],
    });
  }

  attempted(path: SignInPath, outcome: SignInOutcome): void {
    this.attempts.inc({ path, outcome });
  }
}

/** With METRICS_PORT unset nothing is counted. */
export const SIGN_INS_NOT_COUNTED: SignInEvents = { attempted: () => undefined };
