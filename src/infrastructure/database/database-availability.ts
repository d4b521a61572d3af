import type { Logger } from 'pino';
import { type DatabaseTimeout, isDiskFull } from './database-failures';

/** While writes keep being refused for a full disk, the line saying so is written again this often. */
export const DISK_FULL_LINE_EVERY_MS = 60_000;

/**
 * Whether this process can reach its database, as its requests find it: one log line when the
 * database stops answering and one when it answers again, however many requests fail in between
 * (each of those logs only its own line, with the reason). See docs/operations.md.
 *
 * A full disk is not such an outage: reads still answer while writes that need room are refused, so
 * "available again" would follow every refusal. It has a line of its own instead, written once and
 * again each DISK_FULL_LINE_EVERY_MS while refusals go on, with how many there were meanwhile.
 *
 * Nor is a statement the database gave up on at its bound (database-failures.ts): that request's
 * own, with no line beyond the request's, only counted.
 */
export class DatabaseAvailability {
  private unavailableSince: number | null = null;
  private diskFullLineAt: number | null = null;
  private diskFullUnlogged = 0;
  /** Outages seen since the process started, for the metrics. */
  outages = 0;
  /** Requests refused for a full disk since the process started, for the metrics. */
  diskFullRefusals = 0;
  /** Requests whose statement the database gave up on at its bound since the process started, by reason. */
  readonly timeouts = new Map<DatabaseTimeout, number>();

  constructor(private readonly logger: Pick<Logger, 'warn' | 'info'>) {}

  /**
   * A request found the database unavailable (unreachable, timed out, connection lost, its disk
   * full), for `reason`; `error` is what it failed with.
   */
  readonly lost = (reason: string, error?: unknown): void => {
    if (isDiskFull(error)) return this.refusedForRoom(reason);
    if (this.unavailableSince !== null) return;
    this.unavailableSince = Date.now();
    this.outages += 1;
    this.logger.warn({ reason }, 'database unavailable: requests that need it are answered 503 until it answers again');
  };

  /** A request's statement ran past a bound of the database (the other requests are served meanwhile). */
  readonly timedOut = (reason: DatabaseTimeout): void => {
    this.timeouts.set(reason, (this.timeouts.get(reason) ?? 0) + 1);
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

  private refusedForRoom(reason: string): void {
    this.diskFullRefusals += 1;
    const now = Date.now();
    if (this.diskFullLineAt !== null && now - this.diskFullLineAt < DISK_FULL_LINE_EVERY_MS) {
      this.diskFullUnlogged += 1;
      return;
    }
    this.logger.warn(
      { reason, refused_since_last_line: this.diskFullUnlogged },
      'database disk full: writes that need room are answered 503 until there is room; reads still answer',
    );
    this.diskFullLineAt = now;
    this.diskFullUnlogged = 0;
  }
}
