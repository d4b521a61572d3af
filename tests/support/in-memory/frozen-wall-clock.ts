import type { WallClock } from '../../../src/core/ports/wall-clock';

/** A wall clock that only moves when the test moves it. */
export class FrozenWallClock implements WallClock {
  private current: Date;

  constructor(start: Date | string = '2030-01-01T12:00:00Z') {
    this.current = new Date(start);
  }

  now(): Date {
    return new Date(this.current.getTime());
  }

  set(moment: Date | string): void {
    this.current = new Date(moment);
  }

  advanceBy(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }

  advanceMinutes(minutes: number): void {
    this.advanceBy(minutes * 60_000);
  }
}
