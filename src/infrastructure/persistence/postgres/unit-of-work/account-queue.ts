/**
 * One account's units of work in this process, one after another: each starts from the state the
 * one before it wrote (KnownTravellers), so they do not collide with each other. Across processes
 * the version guard decides (transaction-boundary.ts). Work in the background for an account gives
 * way to its units waiting here (`giveWay`).
 */
export class AccountQueue {
  private readonly tails = new Map<string, Promise<void>>();
  /** Each account's units entered and not yet left: the first runs, the others wait. */
  private readonly entered = new Map<string, number>();
  /** Who gives way to each account's waiting units, woken when none waits any more. */
  private readonly givingWay = new Map<string, Set<() => void>>();

  /** Waits for the account's unit before this one; the function it answers lets the next one go. */
  async enter(accountId: string): Promise<() => void> {
    const previous = this.tails.get(accountId);
    let leave: () => void = () => undefined;
    const left = new Promise<void>((resolve) => (leave = resolve));
    const tail = previous ? previous.then(() => left) : left;
    this.tails.set(accountId, tail);
    this.entered.set(accountId, (this.entered.get(accountId) ?? 0) + 1);
    if (previous) await previous;
    let gone = false;
    return () => {
      if (gone) return;
      gone = true;
      leave();
      if (this.tails.get(accountId) === tail) this.tails.delete(accountId);
      this.leftOne(accountId);
    };
  }

  /** Resolves once none of the account's units waits, or after `atMostMs`: how long it waited. */
  giveWay(accountId: string, atMostMs: number): Promise<number> {
    if (!this.waiting(accountId)) return Promise.resolve(0);
    const since = performance.now();
    return new Promise((resolve) => {
      const waiters = this.givingWay.get(accountId) ?? new Set<() => void>();
      this.givingWay.set(accountId, waiters);
      const done = () => {
        clearTimeout(timer);
        waiters.delete(done);
        if (waiters.size === 0 && this.givingWay.get(accountId) === waiters) this.givingWay.delete(accountId);
        resolve(performance.now() - since);
      };
      const timer = setTimeout(done, atMostMs);
      waiters.add(done);
    });
  }

  private waiting(accountId: string): boolean {
    return (this.entered.get(accountId) ?? 0) > 1;
  }

  private leftOne(accountId: string): void {
    const remaining = (this.entered.get(accountId) ?? 1) - 1;
    if (remaining > 0) this.entered.set(accountId, remaining);
    else this.entered.delete(accountId);
    if (this.waiting(accountId)) return;
    for (const done of [...(this.givingWay.get(accountId) ?? [])]) done();
  }
}
