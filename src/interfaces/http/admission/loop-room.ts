import { type EventLoopUtilization, performance } from 'node:perf_hooks';
import { LeftTheQueue, type WhenGone } from './admission-gate';

/**
 * The share of the event loop's time past which heavier requests wait to start: the rest is kept
 * for ordinary requests, whose latency is the loop's queue (docs/decisions.md#room-on-the-event-loop).
 */
export const DEFAULT_HEAVY_WORK_LOOP_PERCENT = 60;

/** How often the loop's utilization is read, and over how long a window it is reckoned. */
const SAMPLE_MS = 20;
const WINDOW_MS = 100;
/** A heavier request waits at most this long, so ordinary requests that fill the loop alone cannot starve it. */
const LOOP_ROOM_MAX_HOLD_MS = 1000;

/** The process's event loop as the room reads it: its recent utilization, and a tick at each reading. */
export interface LoopLoad {
  /** The loop's utilization over the last window, from 0 (idle) to 1 (never idle). */
  utilization(): number;
  /** Calls `listener` after each reading until the returned function is called. */
  onReading(listener: () => void): () => void;
}

/**
 * `performance.eventLoopUtilization` read every SAMPLE_MS, kept for WINDOW_MS: the utilization is
 * reckoned from the oldest reading kept to now. One per process, as the loop is; its timer never
 * keeps the process alive.
 */
class SampledLoopLoad implements LoopLoad {
  /** Oldest first; the first is at least WINDOW_MS old once the process has run that long. */
  private readonly readings: EventLoopUtilization[] = [performance.eventLoopUtilization()];
  private readonly listeners = new Set<() => void>();

  constructor() {
    setInterval(() => this.read(), SAMPLE_MS).unref();
  }

  utilization(): number {
    const oldest = this.readings[0];
    if (!oldest) return 0;
    // Just started, the window is empty: no time, no utilization (0 / 0 would be NaN).
    return performance.eventLoopUtilization(performance.eventLoopUtilization(), oldest).utilization || 0;
  }

  onReading(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private read(): void {
    const now = performance.eventLoopUtilization();
    this.readings.push(now);
    // Keep the newest reading that is at least WINDOW_MS old, and those after it.
    while (this.readings.length > 2 && elapsedMs(now) - elapsedMs(this.readings[1]!) >= WINDOW_MS)
      this.readings.shift();
    for (const listener of this.listeners) listener();
  }
}

/** A reading's idle and active times add up to the time since the loop started. */
function elapsedMs(reading: EventLoopUtilization): number {
  return reading.idle + reading.active;
}

let processLoopLoad: SampledLoopLoad | undefined;

/** The one reader of this process's event loop, started at first use. */
export function processLoop(): LoopLoad {
  return (processLoopLoad ??= new SampledLoopLoad());
}

interface Held {
  readonly since: number;
  readonly resolve: (heldMs: number) => void;
}

/**
 * Room on this process's event loop for a heavier request (weight over 1), which has had its turn
 * in the instance's work: it starts at once while the loop's recent utilization is under `bound`,
 * else waits for a reading under it (those held start together, oldest first), or at most
 * LOOP_ROOM_MAX_HOLD_MS. Ordinary requests never wait here, so however many heavy ones come, the
 * loop keeps time for them. A bound of 1 or more holds nothing.
 */
export class LoopRoom {
  private readonly held = new Set<Held>();
  private stopListening: (() => void) | null = null;

  /** `bound`: the utilization, from 0 to 1, past which heavier requests wait. */
  constructor(
    readonly bound = DEFAULT_HEAVY_WORK_LOOP_PERCENT / 100,
    /** The loop it reads, at its first heavier request (a process that never has one never reads it). */
    private readonly loadOf: () => LoopLoad = processLoop,
    private readonly maxHoldMs = LOOP_ROOM_MAX_HOLD_MS,
  ) {
    if (!(bound > 0)) throw new RangeError(`the loop's utilization bound must be above 0, not ${bound}`);
  }

  /**
   * Whether a request of `weight` may wait here: a heavier one, under a bound below 1. Asked first,
   * so that an ordinary request is admitted without another await.
   */
  holds(weight: number): boolean {
    return weight > 1 && this.bound < 1;
  }

  /**
   * A request admitted to its turn: one heavier than ordinary waits for room, and gives its turn
   * back (`leave`) if its client goes meanwhile. Resolves with how long it waited (ms).
   */
  async afterTurn(weight: number, whenGone: WhenGone, leave: () => void): Promise<number> {
    if (!this.holds(weight)) return 0;
    try {
      return await this.whenRoom(whenGone);
    } catch (error) {
      leave();
      throw error;
    }
  }

  /** How many requests wait for room now (for tests). */
  get holding(): number {
    return this.held.size;
  }

  /**
   * Resolves when the request may start, with how long it waited (ms); rejects with LeftTheQueue
   * when its client went away first.
   */
  private async whenRoom(whenGone: WhenGone): Promise<number> {
    if (this.held.size === 0 && this.loadOf().utilization() < this.bound) return 0;
    return new Promise<number>((resolve, reject) => {
      const held: Held = { since: performance.now(), resolve };
      this.held.add(held);
      this.stopListening ??= this.loadOf().onReading(() => this.release());
      whenGone(() => {
        if (!this.held.delete(held)) return;
        this.afterRelease();
        reject(new LeftTheQueue());
      });
    });
  }

  private release(): void {
    const roomy = this.loadOf().utilization() < this.bound;
    const now = performance.now();
    for (const held of this.held)
      if (roomy || now - held.since >= this.maxHoldMs) {
        this.held.delete(held);
        held.resolve(now - held.since);
      }
    this.afterRelease();
  }

  private afterRelease(): void {
    if (this.held.size > 0 || !this.stopListening) return;
    this.stopListening();
    this.stopListening = null;
  }
}
