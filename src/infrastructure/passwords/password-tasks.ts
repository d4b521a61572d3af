// What the password work's threads are asked to do, and how a thread does it.
import type { PasswordCheck, PresentedPassword } from '../../core/ports/credential-hasher';
import { hashPassword, type ScryptCost, verifyPassword } from './scrypt-hashing';
import { ZxcvbnStrength } from './zxcvbn-strength';

/** A new password's hash; a presented one checked against a stored hash; the strength check (zxcvbn). */
export type PasswordTask =
  | { readonly kind: 'hash'; readonly normalised: string; readonly cost: ScryptCost }
  | {
      readonly kind: 'verify';
      readonly presented: PresentedPassword;
      readonly stored: string;
      readonly current: ScryptCost;
    }
  | { readonly kind: 'strength'; readonly password: string; readonly context: readonly string[] };

export type PasswordTaskKind = PasswordTask['kind'];

export const PASSWORD_TASK_KINDS: readonly PasswordTaskKind[] = ['hash', 'verify', 'strength'];

/** What each kind of task answers. */
export interface PasswordTaskResults {
  readonly hash: string;
  readonly verify: PasswordCheck;
  readonly strength: boolean;
}

export type TaskOf<K extends PasswordTaskKind> = Extract<PasswordTask, { readonly kind: K }>;

/** Runs tasks on the thread that holds it; the strength checker's lists are built when it is made. */
export class PasswordTaskRunner {
  private readonly strength = new ZxcvbnStrength();

  run(task: PasswordTask): PasswordTaskResults[PasswordTaskKind] {
    switch (task.kind) {
      case 'hash':
        return hashPassword(task.normalised, task.cost);
      case 'verify':
        return verifyPassword(task.presented, task.stored, task.current);
      case 'strength':
        return this.strength.isGuessable(task.password, task.context);
    }
  }
}
