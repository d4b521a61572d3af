import type { Logger } from 'pino';
import { type DatabaseTimeout, isDiskFull, isReadOnly } from '../driver/database-failures';

/** While writes keep being refused for a full disk or a standby, the line saying so is written again this often. */
export const REFUSALS_LINE_EVERY_MS = 60_000;

/**
 * Whether this process can reach its database, as its requests find it: one log line when the
 * database stops answering and one when it answers again, however many requests fail in between
 * (each of those logs only its own line, with the reason). See docs/operations.md.
 *
 * A full disk is not such an outage: reads still answer while writes that need room are refused, so
 * "available again" would follow every refusal. It has a line of its own instead, written once and
 * again each REFUSALS_LINE_EVERY_MS while refusals go on, with how many there were meanwhile. So has
 * a server that accepts no writes, a standby (`25006`): the same refusals, for another reason.
 *
 * Nor is a statement the database gave up on at its bound (database-failures.ts): that request's
 * own, with no line beyond the request's, only counted.
 */
export class DatabaseAvailability {
  private unavailableSince: number | null = null;
  private readonly diskFull: RepeatedRefusals;
  private readonly readOnly: RepeatedRefusals;
  /** Outages seen since the process started, for the metrics. */
  outages = 0;
  /** Requests whose statement the database gave up on at its bound since the process started, by reason. */
  readonly timeouts = new Map<DatabaseTimeout, number>();

  constructor(private readonly logger: Pick<Logger, 'warn' | 'info'>) {
    this.diskFull = new RepeatedRefusals(
      logger,
      'database disk full: writes that need room are answered 503 until there is room; reads still answer',
    );
    this.readOnly = new RepeatedRefusals(
      logger,
      'database read-only (a standby, in recovery): writes are answered 503 until DATABASE_URL leads to the primary',
    );
  }

  /** Requests refused for a full disk since the process started, for the metrics. */
  get diskFullRefusals(): number {
    return this.diskFull.refusals;
  }

  /** Requests refused by a server that accepts no writes since the process started, for the metrics. */
  get readOnlyRefusals(): number {
    return this.readOnly.refusals;
  }

  /**
   * A request found the database unavailable (unreachable, timed out, connection lost, its disk
   * full, a standby), for `reason`; `error` is what it failed with.
   */
  readonly lost = (reason: string, error?: unknown): void => {
    if (isDiskFull(error)) return this.diskFull.refused(reason);
    if (isReadOnly(error)) return this.readOnly.refused(reason);
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
}

/** Refusals of one condition of the database: counted, and said once each REFUSALS_LINE_EVERY_MS while they go on. */
class RepeatedRefusals {
  private lineAt: number | null = null;
  private unlogged = 0;
  refusals = 0;

  constructor(
    private readonly logger: Pick<Logger, 'warn'>,
    private readonly line: string,
  ) {}

  refused(reason: string): void {
    this.refusals += 1;
    const now = Date.now();
    if (this.lineAt !== null && now - this.lineAt < REFUSALS_LINE_EVERY_MS) {
      this.unlogged += 1;
      return;
    }
    this.logger.warn({ reason, refused_since_last_line: this.unlogged }, this.line);
    this.lineAt = now;
    this.unlogged = 0;
  }
}
