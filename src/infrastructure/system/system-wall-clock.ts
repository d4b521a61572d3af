import type { WallClock } from '../../core/ports/wall-clock';

export class SystemWallClock implements WallClock {
  now(): Date {
    return new Date();
  }
}
