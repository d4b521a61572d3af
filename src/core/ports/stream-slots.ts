/**
 * The event streams an account holds, all its API keys together, counted across every process
 * sharing the database. A stream takes one of its account's slots for a lease, renewed while it
 * stays open and its key valid; a process that dies stops renewing, and its slots come free when
 * their leases run out. An abstract class so that it is its own injection token: the HTTP edge,
 * which holds the streams, resolves it without composition.
 */
export abstract class StreamSlots {
  /**
   * One of the account's `limit` slots for `holder` (an id of the stream's own, opened with the key
   * `apiKeyId`) until `leaseMs` from now; false when all are held. While it is live, changes of the
   * account's events are announced (the streams hear them), so a stream takes its slot before it
   * first reads; it is taken once the account's writes under way, which announced nothing, have
   * committed, so that read sees them.
   */
  abstract take(
    key: { readonly apiKeyId: string; readonly accountId: string },
    holder: string,
    limit: number,
    leaseMs: number,
  ): Promise<boolean>;
  /**
   * The leases of these holders, `leaseMs` from now, while their key is valid (neither revoked nor
   * expired nor deleted) and may still read events (a full key, or `events:read` or `write`): the
   * holders renewed, the others having lost their slot, their key or its permission.
   */
  abstract renew(holders: readonly string[], leaseMs: number): Promise<string[]>;
  /** The holder's slot of the account, free again. */
  abstract release(accountId: string, holder: string): Promise<void>;
}
