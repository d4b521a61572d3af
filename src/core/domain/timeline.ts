import { wholeSeconds } from './date-time';
import { InvalidWindow } from './errors';

export const PRIMARY_TIMELINE_ID = 'primary';
export const DEFAULT_WINDOW_MINUTES = 12;
export const MAX_WINDOW_MINUTES = 10_080; // one week: a window is a travel deadline, not storage

/**
 * open: created, nobody has travelled there yet; active: the traveller is there;
 * completed: the traveller came home within the window; expired: the window closed first.
 * `primary` is the main timeline: always open, with no destination and no window.
 */
export type TimelineStatus = 'open' | 'active' | 'completed' | 'expired';

export interface TimelineProps {
  readonly accountId: string;
  readonly id: string;
  readonly name: string;
  readonly destinationTime: Date | null;
  readonly createdAt: Date;
  readonly status: TimelineStatus;
  readonly windowMinutes: number | null;
}

export class Timeline implements TimelineProps {
  readonly accountId: string;
  readonly id: string;
  readonly name: string;
  readonly destinationTime: Date | null;
  readonly createdAt: Date;
  readonly status: TimelineStatus;
  readonly windowMinutes: number | null;

  private constructor(props: TimelineProps) {
    this.accountId = props.accountId;
    this.id = props.id;
    this.name = props.name;
    this.destinationTime = props.destinationTime;
    this.createdAt = props.createdAt;
    this.status = props.status;
    this.windowMinutes = props.windowMinutes;
  }

  static restore(props: TimelineProps): Timeline {
    return new Timeline(props);
  }

  static primary(accountId: string, createdAt: Date): Timeline {
    return new Timeline({
      accountId,
      id: PRIMARY_TIMELINE_ID,
      name: 'Primary timeline',
      destinationTime: null,
      createdAt,
      status: 'open',
      windowMinutes: null,
    });
  }

  static create(input: {
    accountId: string;
    id: string;
    name: string;
    destinationTime: Date;
    windowMinutes: number;
    now: Date;
  }): Timeline {
    const minutes = input.windowMinutes;
    if (!Number.isInteger(minutes) || minutes < 1 || minutes > MAX_WINDOW_MINUTES)
      throw new InvalidWindow(minutes, MAX_WINDOW_MINUTES);
    return new Timeline({
      accountId: input.accountId,
      id: input.id,
      name: input.name,
      destinationTime: input.destinationTime,
      createdAt: input.now,
      status: 'open',
      windowMinutes: input.windowMinutes,
    });
  }

  get isPrimary(): boolean {
    return this.id === PRIMARY_TIMELINE_ID;
  }

  /**
   * The last wall-clock moment at which the journey may still be completed; null for `primary`.
   * Counted from `created_at` as answered (whole seconds), so the `window_closes_at` shown is the rule.
   */
  get deadline(): Date | null {
    if (this.windowMinutes === null) return null;
    return new Date(wholeSeconds(this.createdAt).getTime() + this.windowMinutes * 60_000);
  }

  windowHasPassed(now: Date): boolean {
    const deadline = this.deadline;
    return deadline !== null && now.getTime() > deadline.getTime();
  }

  /**
   * The status as of `now`: a window that closed on an unfinished journey reads as expired even
   * before any request stored that, so every reader sees the same answer.
   */
  statusAt(now: Date): TimelineStatus {
    const unfinished = this.status === 'open' || this.status === 'active';
    return unfinished && this.windowHasPassed(now) ? 'expired' : this.status;
  }

  /** This timeline as stored from now on: its status settled as of `now`. */
  settledAt(now: Date): Timeline {
    return this.withStatus(this.statusAt(now));
  }

  withStatus(status: TimelineStatus): Timeline {
    return status === this.status ? this : new Timeline({ ...this, status });
  }
}
