import type { WallClock } from '../../src/core/ports/wall-clock';

/** Real time plus an offset the test moves forward, so HTTP tests can outlive a travel window at once. */
export class ShiftableWallClock implements WallClock {
  private offsetMs = 0;

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  advanceMinutes(minutes: number): void {
    this.offsetMs += minutes * 60_000;
  }

  advanceSeconds(seconds: number): void {
    this.offsetMs += seconds * 1000;
  }

  /** Stops time at `instant` (advancing still moves it), so a test cannot straddle a rate-limit window. */
  freezeAt(instant: Date): void {
    this.offsetMs = 0;
    this.now = () => new Date(instant.getTime() + this.offsetMs);
  }
}
