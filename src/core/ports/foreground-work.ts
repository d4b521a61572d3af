/**
 * The requests an account is making of this process, which work done in the background for the
 * same account (a webhook delivery) gives way to (docs/webhooks.md, "Delivering").
 */
export interface ForegroundWork {
  /**
   * Resolves once none of the account's units of work waits for its turn in this process, or after
   * `atMostMs` whatever it waits for: the milliseconds it waited (0 when none was waiting).
   */
  giveWay(accountId: string, atMostMs: number): Promise<number>;
}
