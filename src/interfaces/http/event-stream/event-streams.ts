import { context, ROOT_CONTEXT, type Span, trace } from '@opentelemetry/api';
import type { DeliverySpans } from './delivery-spans';
import { randomUUID } from 'node:crypto';
import type { Response } from 'express';
import { InvalidApiKey } from '../../../core/domain/errors';
import { FeedInterrupted } from '../../../core/ports/event-feed';
import type { StreamSlots } from '../../../core/ports/stream-slots';
import type { EventStreamSource } from './event-stream-source';
import type { AccountLimit } from '../middleware/rate-limit';
import { localsOf } from '../answer-locals';
import { pacedCatchUp } from './catch-up-pacing';
import { OpenStream, type StreamEndings } from './open-stream';
import { capacityReached, notStreamingNow, tooManyStreams, unheard } from './stream-problems';

export type { StreamEndings } from './open-stream';

export interface EventStreamLimits {
  /** Streams one process holds at once; beyond, 503 (another process behind the proxy may take it). */
  readonly perProcess: number;
  /**
   * Streams one account holds at once, all its keys together, in every process together
   * (StreamSlots); beyond, 429.
   */
  readonly perAccount: number;
  /** A comment line this often keeps an idle stream alive through proxies (nginx's default cut: 60 s). */
  readonly heartbeatMs: number;
  /** What clients are told to wait before reconnecting (the SSE `retry` field). */
  readonly retryMs: number;
  /**
   * How long a stream's slot of its key is leased, renewed three times within it: how soon a dead
   * process's slots come free, and a revoked key's streams end. Default: three heartbeats, at least 30 s.
   */
  readonly leaseMs?: number;
}

export const DEFAULT_STREAM_LIMITS: EventStreamLimits = {
  perProcess: 2_000,
  perAccount: 20,
  heartbeatMs: 15_000,
  retryMs: 2_000,
};

/** A stream's slot of its key is leased for this long at least, and renewed three times within it. */
const MIN_LEASE_MS = 30_000;

/**
 * The process's open event streams: counted against the limits (each holding a slot of its key,
 * shared by every process), kept alive with heartbeats, ended when their key is no longer valid,
 * and all ended together when the service stops (`closeAll`), so that none holds a shutdown.
 */
export class EventStreams {
  /** The open streams by the holder id of their key's slot. */
  private readonly open = new Map<string, OpenStream>();
  /** Messages written on this process's streams since it started, by event name, for the metrics. */
  readonly delivered = new Map<string, number>();
  /** Times a stream's catch-up waited for its account's rate limit since the process started, for the metrics. */
  catchUpWaits = 0;
  private readonly leaseMs: number;
  private renewal: NodeJS.Timeout | undefined;
  private closing = false;

  constructor(
    private readonly slots: StreamSlots,
    private readonly limits: EventStreamLimits = DEFAULT_STREAM_LIMITS,
    /** A span per change delivered, continuing its writer's trace (tracing on). */
    private readonly deliveries?: DeliverySpans,
  ) {
    this.leaseMs = limits.leaseMs ?? Math.max(MIN_LEASE_MS, 3 * limits.heartbeatMs);
  }

  /** Streams open now in this process. */
  get size(): number {
    return this.open.size;
  }

  /** The most streams this process holds at once (EVENT_STREAMS_PER_PROCESS). */
  get limit(): number {
    return this.limits.perProcess;
  }

  /**
   * Answers `res` with the stream `start` opens. Refusals (the limits, and whatever `start` throws
   * before the first byte: an unknown timeline, a bad Last-Event-ID) are thrown as problems. With
   * `accountLimit`, its catch-up is paid for as it goes (catch-up-pacing.ts).
   */
  async serve(
    res: Response,
    key: { readonly apiKeyId: string; readonly accountId: string },
    start: () => Promise<EventStreamSource>,
    endings: StreamEndings,
    accountLimit?: AccountLimit,
  ): Promise<void> {
    if (this.closing) throw notStreamingNow();
    if (this.open.size >= this.limits.perProcess) throw capacityReached(this.limits.perProcess);
    const stream = new OpenStream(key.accountId, key.apiKeyId, randomUUID(), res, (ended) => this.forget(ended));
    // Counted in this process before anything is awaited, so that concurrent opens see each other.
    this.open.set(stream.holder, stream);
    this.renewLeases();
    const refused = (error: unknown): unknown => {
      stream.end();
      return error instanceof FeedInterrupted ? unheard(error) : error;
    };
    let source: EventStreamSource;
    try {
      // Before `start` reads: from then on the database announces the account's changes.
      if (!(await this.slots.take(key, stream.holder, this.limits.perAccount, this.leaseMs)))
        throw tooManyStreams(this.limits.perAccount);
      stream.holdsSlot = true;
      // A change heard before the slot was held found nothing to check: the slot is checked now,
      // and a key found no longer valid is refused as authentication refuses it.
      if (stream.keyChangedWhileOpening) {
        await this.recheck([stream]);
        if (stream.ended) throw new InvalidApiKey();
      }
      source = await start();
    } catch (error) {
      throw refused(error);
    }
    if (stream.ended) {
      // Ended while it opened (the service stopping, its key revoked, its client gone): a slot
      // taken after `end()` gave it back is given back again.
      source.close();
      this.release(stream);
      if (!res.destroyed) throw notStreamingNow();
      return;
    }
    const span = trace.getActiveSpan();
    const sent = accountLimit
      ? pacedCatchUp(source, accountLimit, key.accountId, stream.endedSignal, (seconds) =>
          this.waited(res, seconds, span),
        )
      : source;
    await stream.send(sent, this.limits, endings, this.delivered, this.deliveries);
  }

  /** A catch-up waits for its account's rate limit: counted, on the stream's log line and its request's span. */
  private waited(res: Response, retryAfterSeconds: number, span: Span | undefined): void {
    this.catchUpWaits += 1;
    const locals = localsOf(res);
    locals.catchUpWaits = (locals.catchUpWaits ?? 0) + 1;
    span?.addEvent('catch-up waited for the rate limit', { retry_after_s: retryAfterSeconds });
  }

  /**
   * The key changed (revoked, rolled, signed out, its expiry changed, deleted): its streams are
   * checked now as a renewal checks them, and those whose key is no longer valid end.
   */
  keyChanged(apiKeyId: string): void {
    this.recheckWhere((stream) => stream.apiKeyId === apiKeyId);
  }

  /** Any key may have changed unheard (every key was removed, or the listener was lost): all are checked. */
  recheckKeys(): void {
    this.recheckWhere(() => true);
  }

  private recheckWhere(changed: (stream: OpenStream) => boolean): void {
    const streams = [...this.open.values()].filter(changed);
    for (const stream of streams) if (!stream.holdsSlot) stream.keyChangedWhileOpening = true;
    const holding = streams.filter((stream) => stream.holdsSlot);
    if (holding.length > 0) void this.recheck(holding);
  }

  /** Ends every stream and refuses new ones: the service is stopping. */
  closeAll(): void {
    this.closing = true;
    for (const stream of [...this.open.values()]) stream.end();
  }

  private forget(stream: OpenStream): void {
    this.open.delete(stream.holder);
    if (this.open.size === 0) clearInterval(this.renewal);
    this.release(stream);
  }

  private release(stream: OpenStream): void {
    // Not awaited: a slot not given back comes free when its lease runs out.
    this.slots.release(stream.accountId, stream.holder).catch(() => undefined);
  }

  /**
   * While streams are open, one statement renews all their leases, three times a lease. A stream
   * whose lease was not renewed (its key revoked, expired or deleted, or its slot lost) ends. A
   * renewal that fails changes nothing: an outage ends the streams by itself (event-changes.ts).
   */
  private renewLeases(): void {
    if (this.open.size !== 1) return;
    // Started by the first stream's request, but every stream's: not in that request's trace, whose
    // server span lasts as long as the stream (a timer keeps the context it was made in).
    this.renewal = context.with(ROOT_CONTEXT, () => setInterval(() => void this.renew(), this.leaseMs / 3));
    this.renewal.unref();
  }

  private renew(): Promise<void> {
    return this.recheck([...this.open.values()].filter((stream) => stream.holdsSlot));
  }

  /** Renews these streams' leases; those not renewed (their key no longer valid, their slot lost) end. */
  private async recheck(holding: readonly OpenStream[]): Promise<void> {
    let kept: ReadonlySet<string>;
    try {
      kept = new Set(
        await this.slots.renew(
          holding.map((stream) => stream.holder),
          this.leaseMs,
        ),
      );
    } catch {
      // Nothing is known of the leases; an outage ends the streams by itself (event-changes.ts).
      return;
    }
    for (const stream of holding) if (!kept.has(stream.holder)) stream.end();
  }
}
