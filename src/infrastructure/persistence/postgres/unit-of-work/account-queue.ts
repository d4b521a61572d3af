/**
 * One account's units of work in this process, one after another: each starts from the state the
 * one before it wrote (KnownTravellers), so they do not collide with each other. Across processes
 * the version guard decides (transaction-boundary.ts).
 */
export class AccountQueue {
  private readonly tails = new Map<string, Promise<void>>();

  /** Waits for the account's unit before this one; the function it answers lets the next one go. */
  async enter(accountId: string): Promise<() => void> {
    const previous = this.tails.get(accountId);
    let leave: () => void = () => undefined;
    const left = new Promise<void>((resolve) => (leave = resolve));
    const tail = previous ? previous.then(() => left) : left;
    this.tails.set(accountId, tail);
    if (previous) await previous;
    return () => {
      leave();
      if (this.tails.get(accountId) === tail) this.tails.delete(accountId);
    };
  }
}
