/**
 * Failed attempts at a credential, counted per client in this process's memory, so that a client
 * that keeps failing is refused before its next attempt costs a database read
 * (docs/decisions.md, "Failed API keys").
 */
export interface FailedAttempts {
  /** Milliseconds until `client` may try again; 0 when it may try now. */
  waitBeforeNext(client: string): Promise<number>;
  /** Counts one failed attempt of `client`. */
  failed(client: string): Promise<void>;
}
