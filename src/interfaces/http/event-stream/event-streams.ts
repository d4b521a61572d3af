import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { Request, Response } from 'express';
import { FeedInterrupted } from '../../../core/ports/event-feed';
import type { StreamSlots } from '../../../core/ports/stream-slots';
import { RETRY_AFTER_SECONDS } from '../middleware/problem-handler';
import { Problem } from '../problem';
import type { EventStreamSource } from './event-stream-source';

export interface EventStreamLimits {
  /** Streams one process holds at once; beyond, 503 (another process behind the proxy may take it). */
  readonly perProcess: number;
  /** Streams one API key holds at once, in every process together (StreamSlots); beyond, 429. */
  readonly perKey: number;
  /** A comment line this often keeps an idle stream alive through proxies (nginx's default cut: 60 s). */
  readonly heartbeatMs: number;
  /** What clients are told to wait before reconnecting (the SSE `retry` field). */
  readonly retryMs: number;
}

export const DEFAULT_STREAM_LIMITS: EventStreamLimits = {
  perProcess: 2_000,
  perKey: 20,
  heartbeatMs: 15_000,
  retryMs: 2_000,
};

/** What ends a stream that was not the client's leaving, for the log. */
export interface StreamEndings {
  /** The database went away (logged once per outage, as every request's 503). */
  readonly onUnavailable: (reason: string) => void;
  readonly isUnavailable: (error: unknown) => boolean;
  readonly logError: (error: unknown) => void;
}

/** A stream's slot of its key is leased for this long at least, and renewed three times within it. */
const MIN_LEASE_MS = 30_000;

/**
 * The process's open event streams: counted against the limits (each holding a slot of its key,
 * shared by every process), kept alive with heartbeats, and all ended together when the service
 * stops (`closeAll`), so that no stream holds a shutdown.
 */
export class EventStreams {
  /** Each open stream's end, by the holder id of its key's slot. */
  private readonly open = new Map<string, () => void>();
  private readonly leaseMs: number;
  private renewal: NodeJS.Timeout | undefined;
  private closing = false;

  constructor(
    private readonly slots: StreamSlots,
    private readonly limits: EventStreamLimits = DEFAULT_STREAM_LIMITS,
  ) {
    this.leaseMs = Math.max(MIN_LEASE_MS, 3 * limits.heartbeatMs);
  }

  /** Streams open now in this process. */
  get size(): number {
    return this.open.size;
  }

  /**
   * Answers `res` with the stream `start` opens. Refusals (the limits, and whatever `start` throws
   * before the first byte: an unknown timeline, a bad Last-Event-ID) are thrown as problems.
   */
  async serve(
    req: Request,
    res: Response,
    keyId: string,
    start: () => Promise<EventStreamSource>,
    endings: StreamEndings,
  ): Promise<void> {
    this.admit();
    const holder = randomUUID();
    let ended = false;
    // Gives the stream's places back and, once it streams, ends the answer (a refusal before that
    // is the problem handler's to write).
    const end = (): void => {
      if (ended) return;
      ended = true;
      this.open.delete(holder);
      if (this.open.size === 0) clearInterval(this.renewal);
      // Not awaited: a slot not given back comes free when its lease runs out.
      this.slots.release(keyId, holder).catch(() => undefined);
      if (res.headersSent && !res.writableEnded) res.end();
    };
    // Counted in this process before anything is awaited, so that concurrent opens see each other.
    this.open.set(holder, end);
    this.renewLeases();
    try {
      if (!(await this.slots.take(keyId, holder, this.limits.perKey, this.leaseMs))) throw this.tooMany();
    } catch (error) {
      end();
      throw error;
    }
    let source: EventStreamSource;
    try {
      source = await start();
    } catch (error) {
      end();
      throw error instanceof FeedInterrupted ? unheard(error) : error;
    }
    if (ended || res.destroyed) {
      source.close();
      end();
      return;
    }
    await this.send(req, res, source, end, endings);
  }

  /** Ends every stream and refuses new ones: the service is stopping. */
  closeAll(): void {
    this.closing = true;
    for (const end of [...this.open.values()]) end();
  }

  /** While streams are open, one statement renews all their leases, three times a lease. */
  private renewLeases(): void {
    if (this.open.size !== 1) return;
    this.renewal = setInterval(() => {
      this.slots.renew([...this.open.keys()], this.leaseMs).catch(() => undefined);
    }, this.leaseMs / 3);
    this.renewal.unref();
  }

  private tooMany(): Problem {
    return new Problem(
      429,
      'too_many_streams',
      `This API key holds its most event streams (${this.limits.perKey}); close one first.`,
      { limit: this.limits.perKey },
    );
  }

  private admit(): void {
    if (this.closing) {
      throw new Problem(
        503,
        'service_unavailable',
        'The service is stopping; reconnect to another process.',
        {},
        {
          'Retry-After': String(RETRY_AFTER_SECONDS),
        },
      );
    }
    if (this.open.size >= this.limits.perProcess) {
      throw new Problem(
        503,
        'stream_capacity_reached',
        `This process holds its most event streams (${this.limits.perProcess}); retry shortly.`,
        { limit: this.limits.perProcess },
        { 'Retry-After': String(RETRY_AFTER_SECONDS) },
      );
    }
  }

  private async send(
    req: Request,
    res: Response,
    source: EventStreamSource,
    end: () => void,
    endings: StreamEndings,
  ): Promise<void> {
    res.status(200);
    // For the request log: a stream's end, whoever ends it, is how a stream ends (request-log.ts).
    res.locals.eventStream = true;
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    // nginx buffers a proxied answer unless told not to; this one must reach the client as written.
    res.setHeader('X-Accel-Buffering', 'no');
    res.write(`retry: ${this.limits.retryMs}\n\n`);
    const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), this.limits.heartbeatMs);
    const stop = (): void => {
      clearInterval(heartbeat);
      source.close();
      end();
    };
    req.once('close', stop);
    res.once('close', stop);
    try {
      for await (const message of source) {
        const fits = res.write(`id: ${message.id}\nevent: ${message.event}\ndata: ${message.data}\n\n`);
        if (!fits && !res.destroyed) await Promise.race([once(res, 'drain'), once(res, 'close')]);
        if (res.destroyed) break;
      }
    } catch (error) {
      ended(error, endings);
    } finally {
      stop();
    }
  }
}

/** A stream that ended before its client left: an outage, the service stopping, or a fault. */
function ended(error: unknown, endings: StreamEndings): void {
  if (error instanceof FeedInterrupted) {
    if (error.reason === 'database_unavailable') endings.onUnavailable(error.message);
    return;
  }
  if (endings.isUnavailable(error)) endings.onUnavailable(error instanceof Error ? error.message : String(error));
  else endings.logError(error);
}

/** Changes cannot be heard now (the database is out of reach, or the service stops): retry shortly. */
function unheard(error: FeedInterrupted): Problem {
  return new Problem(
    503,
    'service_unavailable',
    `Events cannot be streamed now: ${error.message}. Retry shortly.`,
    {},
    { 'Retry-After': String(RETRY_AFTER_SECONDS) },
  );
}
