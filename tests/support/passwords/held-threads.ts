import type { PasswordTask } from '../../../src/infrastructure/passwords/password-tasks';
import { PasswordTaskRunner } from '../../../src/infrastructure/passwords/password-tasks';
import type { TaskThreads } from '../../../src/infrastructure/passwords/password-threads';

/**
 * Threads of the password work's pool whose tasks start when the pool hands them out and end only
 * when the test says: each then runs for real (on the test's thread), or ends with a given result.
 * What the pool does while all its threads are busy is then the test's to see, with no timing.
 */
export class HeldThreads implements TaskThreads {
  private readonly runner = new PasswordTaskRunner();
  private readonly running: { readonly task: PasswordTask; finish(result: unknown): void; fail(error: Error): void }[] =
    [];
  /** Every task handed out, in order. */
  readonly started: PasswordTask[] = [];
  closed = false;

  constructor(readonly size: number) {}

  get busy(): number {
    return this.running.length;
  }

  run(task: PasswordTask): Promise<unknown> {
    if (this.running.length >= this.size) throw new Error(`handed more than ${this.size} tasks at once`);
    this.started.push(task);
    return new Promise((finish, fail) => this.running.push({ task, finish, fail }));
  }

  /** Ends the oldest running task, with `result` or else by running it, and lets the pool go on. */
  async finishOldest(...result: [] | [unknown]): Promise<void> {
    const oldest = this.running.shift();
    if (!oldest) throw new Error('no task is running');
    oldest.finish(result.length > 0 ? result[0] : this.runner.run(oldest.task));
    await settle();
  }

  /** Fails the oldest running task with `error`. */
  async failOldest(error: Error): Promise<void> {
    this.running.shift()?.fail(error);
    await settle();
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

/** Lets the promises resolved so far run their continuations. */
export async function settle(): Promise<void> {
  for (let round = 0; round < 5; round++) await Promise.resolve();
}
