import type { Logger } from 'pino';

/**
 * Whether this process can reach its database, as its requests find it: one log line when the
 * database stops answering and one when it answers again, however many requests fail in between
 * (each of those logs only its own line, with the reason). See docs/operations.md.
 */
export class DatabaseAvailability {
  private unavailableSince: number | null = null;
  /** Outages seen since the process started, for the metrics. */
  outages = 0;

  constructor(private readonly logger: Pick<Logger, 'warn' | 'info'>) {}

  /** A request found the database unavailable (unreachable, timed out, connection lost), for `reason`. */
  readonly lost = (reason: string): void => {
    if (this.unavailableSince !== null) return;
    this.unavailableSince = Date.now();
    this.outages += 1;
    this.logger.warn({ reason }, 'database unavailable: requests that need it are answered 503 until it answers again');
  };

  get available(): boolean {
    return this.unavailableSince === null;
  }

  /** The database answered a statement. Called for every answer: a check and nothing more while up. */
  readonly answered = (): void => {
    if (this.unavailableSince === null) return;
    const unavailableMs = Date.now() - this.unavailableSince;
    this.unavailableSince = null;
    this.logger.info({ unavailable_ms: unavailableMs }, 'database available again');
  };
}
