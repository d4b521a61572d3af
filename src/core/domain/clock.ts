import { instantAt, LATEST_TIME, wholeSeconds } from './date-time';
import { ClockAlreadyPaused, ClockAlreadyRunning } from './errors';

/**
 * The flow of time of one account. A running clock advances with the wall clock from the moment
 * it was last read or set; a paused clock holds still. Explicit moves (travel, return,
 * fast-forward, rewind) set it in either state and leave it in that state.
 */
export class Clock {
  private constructor(
    /** The reading at `readAt`. */
    readonly reading: Date,
    /** Wall-clock moment at which `reading` was true. */
    readonly readAt: Date,
    readonly paused: boolean,
  ) {}

  static restore(state: { reading: Date; readAt: Date; paused: boolean }): Clock {
    return new Clock(state.reading, state.readAt, state.paused);
  }

  /** A new account's clock: running, showing the present. */
  static startingAt(now: Date): Clock {
    return new Clock(now, now, false);
  }

  /**
   * Whole seconds, as the API reports time. A running clock that reaches the end of the supported
   * span stops there rather than failing reads.
   */
  currentTime(now: Date): Date {
    return wholeSeconds(this.exactTime(now));
  }

  /** To the millisecond: pause and shifts build on this, so no write drops the wall time elapsed. */
  private exactTime(now: Date): Date {
    if (this.paused) return this.reading;
    const ms = this.reading.getTime() + (now.getTime() - this.readAt.getTime());
    return new Date(Math.min(ms, LATEST_TIME.getTime()));
  }

  /** Sets the clock to `time` (travel, return); a paused clock stays paused at that time. */
  setTo(time: Date, now: Date): Clock {
    return new Clock(instantAt(time.getTime()), now, this.paused);
  }

  /** Holds the clock still at its current reading. */
  pause(now: Date): Clock {
    if (this.paused) throw new ClockAlreadyPaused();
    return new Clock(this.exactTime(now), now, true);
  }

  /** Lets the clock run on from exactly the moment it was paused at. */
  resume(now: Date): Clock {
    if (!this.paused) throw new ClockAlreadyRunning();
    return new Clock(this.reading, now, false);
  }

  /** Moves the clock by `ms` (negative to rewind); refuses a result outside years 0001-9999. */
  shiftBy(ms: number, now: Date): Clock {
    return this.setTo(instantAt(this.exactTime(now).getTime() + ms), now);
  }
}
