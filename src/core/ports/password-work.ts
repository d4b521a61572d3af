/** Told how long one piece of a request's password work waited for a thread (its log line adds them up). */
export type PasswordWaitListener = (waitedMs: number) => void;

/**
 * Whose password work this is. Hashing and the strength check run in a bounded pool of their own,
 * which serves client addresses in turn, and a browser holding the account's device cookie before
 * the rest (docs/decisions.md, "Password work"). When too much is waiting, the work is refused
 * with `PasswordChecksBusy`.
 */
export interface PasswordWorkTurn {
  /** The client the request stands for: an IPv4 address or an IPv6 /64. */
  readonly clientAddress: string;
  /** The browser holds the account's device cookie, of the account's current stamp. */
  readonly knownDevice: boolean;
  readonly onWait?: PasswordWaitListener;
  /**
   * Aborts when the request's client has gone: its work that still waits is dropped (rejected with
   * `PasswordWorkWithdrawn`), so a crowd that gives up does not leave the pool busy for no one.
   */
  readonly clientGone?: AbortSignal;
}

/** What a request that checks a password says of its client, for the turns of its password work. */
export interface PasswordClient {
  readonly clientAddress: string;
  readonly onPasswordWait?: PasswordWaitListener;
  readonly clientGone?: AbortSignal;
}

/** The request's client went away while its password work waited: the work never ran, and no one awaits an answer. */
export class PasswordWorkWithdrawn extends Error {
  constructor() {
    super('the client went away while its password work waited for a thread');
  }
}

/** The turn of a client's password work, known to the account's browser or not. */
export function turnOf(client: PasswordClient, knownDevice: boolean): PasswordWorkTurn {
  return {
    clientAddress: client.clientAddress,
    knownDevice,
    onWait: client.onPasswordWait,
    clientGone: client.clientGone,
  };
}
