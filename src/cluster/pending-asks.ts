// One way to ask the other end of a cluster's IPC channel and wait for its answer: each ask goes
// under an id of its own, and the answer that names that id settles it. Used both ways: by the
// primary asking its workers for their metrics, and by a worker asking its primary to admit a request.

/** What an ask settles with when no answer will come: timed out, not sent, or the other end gone. */
export const UNANSWERED = 'unanswered';
export type Unanswered = typeof UNANSWERED;

/** Asks sent and not yet answered, by id. */
export class PendingAsks<Answer> {
  private readonly waiting = new Map<
    number,
    { settle: (answer: Answer | Unanswered) => void; timer?: NodeJS.Timeout }
  >();
  private nextId = 0;

  /** `timeoutMs`: how long an ask waits before it settles unanswered; unbounded without. */
  constructor(private readonly timeoutMs?: number) {}

  /**
   * Sends an ask under a new id (`send` says whether it could go: unanswered at once if not) and
   * returns that id and its answer to come.
   */
  ask(send: (id: number) => boolean): { readonly id: number; readonly answer: Promise<Answer | Unanswered> } {
    const id = this.nextId++;
    const answer = new Promise<Answer | Unanswered>((resolve) => {
      const timer =
        this.timeoutMs === undefined ? undefined : setTimeout(() => this.settle(id, UNANSWERED), this.timeoutMs);
      this.waiting.set(id, { settle: resolve, timer });
    });
    if (!send(id)) this.settle(id, UNANSWERED);
    return { id, answer };
  }

  /** The answer to the ask `id`; false when none waits for it (answered, timed out or withdrawn). */
  answered(id: number, answer: Answer): boolean {
    return this.settle(id, answer);
  }

  /** Forgets the ask `id` without settling it (its asker gave up); false when none waits for it. */
  withdraw(id: number): boolean {
    const pending = this.waiting.get(id);
    if (!pending) return false;
    clearTimeout(pending.timer);
    this.waiting.delete(id);
    return true;
  }

  /** The other end is gone: every ask waiting settles unanswered. */
  unansweredAll(): void {
    for (const id of [...this.waiting.keys()]) this.settle(id, UNANSWERED);
  }

  /** Asks waiting for their answer. */
  get size(): number {
    return this.waiting.size;
  }

  private settle(id: number, answer: Answer | Unanswered): boolean {
    const pending = this.waiting.get(id);
    if (!pending) return false;
    clearTimeout(pending.timer);
    this.waiting.delete(id);
    pending.settle(answer);
    return true;
  }
}
