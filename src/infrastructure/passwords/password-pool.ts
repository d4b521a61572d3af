// The password work's pool: hashing (scrypt) and the strength check (zxcvbn) on threads of their
// own, so that a crowd of sign-ups and sign-ins slows only each other, never the API's requests,
// which keep the event loop, and libuv's thread pool, to themselves (docs/decisions.md, "Password
// work"). What waits is started in turn by client address (fair-turns.ts); past what may wait, the
// work is refused with PasswordChecksBusy, before it costs anything; work whose client has gone
// is dropped while it waits, and never started.
import { availableParallelism } from 'node:os';
import type { Span, Tracer } from '@opentelemetry/api';
import { SpanStatusCode } from '@opentelemetry/api';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';
import { PasswordChecksBusy } from '../../core/domain/errors';
import { PasswordWorkWithdrawn, type PasswordWorkTurn } from '../../core/ports/password-work';
import { FairTurns, type Lane } from './fair-turns';
import type { PasswordTask, PasswordTaskKind, PasswordTaskResults, TaskOf } from './password-tasks';
import { PASSWORD_THREAD_NICENESS } from './password-thread';
import { PasswordThreads, type TaskThreads, type ThreadStart } from './password-threads';

/**
 * Why work waited, if it did: `none` (a thread was free), `own_address` (its address had work
 * running or waiting already), `other_addresses` (only others' work was ahead of it), `known_device`
 * (it waited in the lane of browsers holding their account's device cookie).
 */
export type WaitReason = 'none' | 'own_address' | 'other_addresses' | 'known_device';

export const WAIT_REASONS: readonly WaitReason[] = ['none', 'own_address', 'other_addresses', 'known_device'];

/** What the pool tells as it goes (the metrics): never who, nor from where. */
export interface PasswordWorkEvents {
  waited(kind: PasswordTaskKind, reason: WaitReason, seconds: number): void;
  ran(kind: PasswordTaskKind, seconds: number): void;
  refused(kind: PasswordTaskKind): void;
  /** Work dropped before it ran because its client went away. */
  withdrawn(kind: PasswordTaskKind): void;
}

export interface PasswordPoolOptions {
  /** Work that may wait in each lane (PASSWORD_CHECKS_QUEUED); past it, PasswordChecksBusy. */
  readonly queued: number;
  readonly events?: PasswordWorkEvents;
  /** Makes each piece of work a span (tracing on). */
  readonly tracer?: Tracer;
  /** Milliseconds of a monotonic clock; tests drive it. */
  readonly now?: () => number;
}

export interface PasswordPoolStats {
  readonly threads: number;
  readonly running: number;
  readonly queued: number;
}

interface Waiting {
  readonly task: PasswordTask;
  readonly turn: PasswordWorkTurn;
  readonly reason: WaitReason;
  readonly since: number;
  readonly span: Span | undefined;
  resolve(result: unknown): void;
  reject(error: unknown): void;
}

/** A piece of work's time on a thread before any has run: about a verification at the shipped cost. */
const FIRST_RUN_ESTIMATE_MS = 200;
/** How much each run moves the estimate of the next: the mean of the last ten or so. */
const RUN_ESTIMATE_WEIGHT = 0.2;
/** Retry-After's bounds, in seconds. */
const RETRY_AFTER_RANGE = { min: 1, max: 60 } as const;

export class PasswordPool {
  private readonly turns: FairTurns<Waiting>;
  private readonly now: () => number;
  private running = 0;
  private runEstimateMs = FIRST_RUN_ESTIMATE_MS;
  private closed = false;

  constructor(
    private readonly threads: TaskThreads,
    private readonly options: PasswordPoolOptions,
  ) {
    this.turns = new FairTurns(options.queued);
    this.now = options.now ?? (() => performance.now());
  }

  stats(): PasswordPoolStats {
    return { threads: this.threads.size, running: this.running, queued: this.turns.size };
  }

  /** Runs the task on a thread in its turn; PasswordChecksBusy when it may not wait. */
  run<K extends PasswordTaskKind>(task: TaskOf<K>, turn: PasswordWorkTurn): Promise<PasswordTaskResults[K]> {
    // The thread answers the task it was given: a result of that task's kind (password-tasks.ts).
    return this.schedule(task, turn) as Promise<PasswordTaskResults[K]>;
  }

  /** Refuses what waits, and ends the threads (what runs fails). */
  async close(): Promise<void> {
    this.closed = true;
    for (const waiting of this.turns.drain()) this.fail(waiting, new Error('the password work pool was closed'));
    await this.threads.close();
  }

  private schedule(task: PasswordTask, turn: PasswordWorkTurn): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error('the password work pool was closed'));
    if (turn.clientGone?.aborted) {
      this.options.events?.withdrawn(task.kind);
      return Promise.reject(new PasswordWorkWithdrawn());
    }
    const span = this.options.tracer?.startSpan(`password ${task.kind}`, {
      attributes: { 'tns.password_work.kind': task.kind },
    });
    const { clientAddress: address, knownDevice } = turn;
    if (this.running < this.threads.size) {
      this.turns.started(address);
      return this.execute({ task, turn, reason: 'none', since: this.now(), span }, address);
    }
    const lane: Lane = knownDevice ? 'known_device' : 'in_turn';
    const reason: WaitReason = knownDevice
      ? 'known_device'
      : this.turns.busy(address)
        ? 'own_address'
        : 'other_addresses';
    return new Promise((resolve, reject) => {
      const waiting: Waiting = { task, turn, reason, since: this.now(), span, resolve, reject };
      const admission = this.turns.offer(waiting, address, lane);
      if (!admission.admitted) return this.refuse(waiting, lane);
      if (admission.displaced) this.refuse(admission.displaced, lane);
      turn.clientGone?.addEventListener('abort', () => this.withdraw(waiting, address, lane), { once: true });
    });
  }

  private async execute(work: Omit<Waiting, 'resolve' | 'reject'>, address: string): Promise<unknown> {
    const { task, turn, reason, span } = work;
    const started = this.now();
    const waitedMs = reason === 'none' ? 0 : started - work.since;
    this.running += 1;
    this.options.events?.waited(task.kind, reason, waitedMs / 1000);
    if (waitedMs > 0) turn.onWait?.(waitedMs);
    span?.setAttributes({ 'tns.password_work.wait_reason': reason, 'tns.password_work.wait_ms': Math.round(waitedMs) });
    try {
      const result = await this.threads.run(task);
      span?.end();
      return result;
    } catch (error) {
      span?.setAttribute(ATTR_ERROR_TYPE, error instanceof Error ? error.constructor.name : 'Error');
      span?.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      span?.end();
      throw error;
    } finally {
      const ranMs = this.now() - started;
      this.runEstimateMs += (ranMs - this.runEstimateMs) * RUN_ESTIMATE_WEIGHT;
      this.options.events?.ran(task.kind, ranMs / 1000);
      this.running -= 1;
      this.turns.finished(address);
      this.startNext();
    }
  }

  private startNext(): void {
    if (this.closed || this.running >= this.threads.size) return;
    const next = this.turns.next();
    if (!next) return;
    const { item } = next;
    this.execute(item, next.address).then(item.resolve, item.reject);
  }

  private refuse(waiting: Waiting, lane: Lane): void {
    this.options.events?.refused(waiting.task.kind);
    const busy = new PasswordChecksBusy(this.retryAfterSeconds(lane));
    waiting.span?.setAttribute(ATTR_ERROR_TYPE, busy.code);
    waiting.span?.end();
    waiting.reject(busy);
  }

  /** Drops work whose client went away, if it still waits (once started, it runs to its end). */
  private withdraw(waiting: Waiting, address: string, lane: Lane): void {
    if (!this.turns.withdraw(waiting, address, lane)) return;
    this.options.events?.withdrawn(waiting.task.kind);
    waiting.span?.setAttribute(ATTR_ERROR_TYPE, 'withdrawn');
    waiting.span?.end();
    waiting.reject(new PasswordWorkWithdrawn());
  }

  private fail(waiting: Waiting, error: Error): void {
    waiting.span?.end();
    waiting.reject(error);
  }

  /** About how long the lane's waiting work takes to start, at the recent runs' pace: when to come back. */
  private retryAfterSeconds(lane: Lane): number {
    const drainMs = (this.turns.waitingInLane(lane) * this.runEstimateMs) / this.threads.size;
    return Math.min(RETRY_AFTER_RANGE.max, Math.max(RETRY_AFTER_RANGE.min, Math.ceil(drainMs / 1000)));
  }
}

/**
 * Work that may wait in each lane (PASSWORD_CHECKS_QUEUED's default): on one idle thread, some six
 * seconds of verifications at the shipped cost, past which a client is better told when to retry.
 */
export const DEFAULT_PASSWORD_CHECKS_QUEUED = 32;

/**
 * Threads of one process's pool (PASSWORD_CHECK_THREADS's default): the host's cores less one,
 * which the API keeps, shared by its `processes` (WEB_CONCURRENCY), and at least one each.
 */
export function defaultPasswordThreads(cores: number, processes: number): number {
  return Math.max(1, Math.floor((cores - 1) / processes));
}

/** Where the pool says, once, whether its threads run below the API. */
export interface PasswordPoolLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

/** Says what the first thread to start said: the rest start alike. */
function startReporter(log: PasswordPoolLog | undefined): (start: ThreadStart) => void {
  let told = false;
  return (start) => {
    if (told || !log) return;
    told = true;
    const below = { niceness_above_api: PASSWORD_THREAD_NICENESS };
    if (start.lowered) log.info(below, 'password work threads run below the API');
    else log.warn({ reason: start.why }, 'password work threads run at the priority of the API');
  };
}

/**
 * A pool on `threads` worker threads, started as work comes, or all at once with `warm` (the
 * service: the first sign-ups do not wait for a thread to load).
 */
export function createPasswordPool(
  settings: PasswordPoolOptions & {
    readonly threads: number;
    readonly warm?: boolean;
    readonly log?: PasswordPoolLog;
  },
): PasswordPool {
  const threads = new PasswordThreads(settings.threads, startReporter(settings.log));
  if (settings.warm) threads.warm();
  return new PasswordPool(threads, settings);
}

/** A pool of the default size, for one process alone on its host. */
export function defaultPasswordPool(): PasswordPool {
  return createPasswordPool({
    threads: defaultPasswordThreads(availableParallelism(), 1),
    queued: DEFAULT_PASSWORD_CHECKS_QUEUED,
  });
}
