/** The real time outside the service; the core never calls `new Date()` itself. */
export interface WallClock {
  now(): Date;
}
