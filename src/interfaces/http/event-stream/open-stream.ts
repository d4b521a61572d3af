import { once } from 'node:events';
import { context, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import type { Response } from 'express';
import { FeedInterrupted } from '../../../core/ports/event-feed';
import type { DeliverySpans } from './delivery-spans';
import type { EventStreamSource } from './event-stream-source';
import { localsOf } from '../answer-locals';

/** What ends a stream that was not the client's leaving, for the log. */
export interface StreamEndings {
  /** The database went away (logged once per outage, as every request's 503), for `error`. */
  readonly onUnavailable: (reason: string, error: unknown) => void;
  readonly isUnavailable: (error: unknown) => boolean;
  /** Any other failure: a statement the database gave up on (counted), or a fault (logged whole). */
  readonly logError: (error: unknown) => void;
}

/**
 * One stream and what it holds (its key's slot, a heartbeat, its source of messages), all let go
 * together by `end()`, whoever ends it: the client, the service stopping, an outage, its key.
 */
export class OpenStream {
  /** Its slot of the key was taken (and so is renewed with the others). */
  holdsSlot = false;
  /** Its key changed while it opened, before it held its slot: checked again once it does. */
  keyChangedWhileOpening = false;
  private source: EventStreamSource | null = null;
  private heartbeat: NodeJS.Timeout | undefined;
  /** Aborted once, by `end()`: whether the stream has ended, and what its waits listen to. */
  private readonly ending = new AbortController();

  constructor(
    /** Whose slot the stream holds: its key's account. */
    readonly accountId: string,
    /** The key it was opened with, whose changes end it when they leave the key invalid. */
    readonly apiKeyId: string,
    readonly holder: string,
    private readonly res: Response,
    private readonly onEnd: (stream: OpenStream) => void,
  ) {
    // From the start: a client that leaves while the stream opens is told once, and a listener
    // added later would never hear it (EventStreams.serve then ends what it opened).
    res.once('close', () => this.end());
  }

  get ended(): boolean {
    return this.ending.signal.aborted;
  }

  /** Aborted when the stream ends: what the stream waits for stops waiting. */
  get endedSignal(): AbortSignal {
    return this.ending.signal;
  }

  /** Lets go of everything and, once the answer has started, ends it (a refusal before is the problem handler's). */
  end(): void {
    if (this.ended) return;
    this.ending.abort();
    clearInterval(this.heartbeat);
    this.source?.close();
    this.onEnd(this);
    if (this.res.headersSent && !this.res.writableEnded) this.res.end();
  }

  /** Writes the stream: `retry`, then each message, with a heartbeat while idle, until it ends. */
  async send(
    source: EventStreamSource,
    limits: { readonly retryMs: number; readonly heartbeatMs: number },
    endings: StreamEndings,
    /** Counts each message written, by its event name (the process's, for the metrics). */
    delivered: Map<string, number> = new Map(),
    deliveries?: DeliverySpans,
  ): Promise<void> {
    const res = this.res;
    this.source = source;
    res.status(200);
    // For the request log: a stream's end, whoever ends it, is how a stream ends (request-log.ts).
    localsOf(res).eventStream = true;
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    // nginx buffers a proxied answer unless told not to; this one must reach the client as written.
    res.setHeader('X-Accel-Buffering', 'no');
    // A write the connection refuses ends the stream, never the process.
    res.on('error', () => this.end());
    res.write(`retry: ${limits.retryMs}\n\n`);
    this.heartbeat = setInterval(() => {
      if (!res.writableEnded) res.write(': heartbeat\n\n');
    }, limits.heartbeatMs);
    // Each delivery's span is linked to the stream's request (its server span, current here).
    const streamSpan = deliveries && trace.getActiveSpan()?.spanContext();
    try {
      for await (const message of readOutsideTrace(source)) {
        if (res.writableEnded) break;
        const span = deliveries?.start(message, streamSpan);
        const id = message.id === undefined ? '' : `id: ${message.id}\n`;
        const flushed = res.write(`${id}event: ${message.event}\ndata: ${message.data}\n\n`);
        span?.end();
        delivered.set(message.event, (delivered.get(message.event) ?? 0) + 1);
        if (!flushed) await drained(res);
      }
    } catch (error) {
      // A read cut short by the stream's own end (its client left, the service stopping and closing
      // its pool) is that ending, not a fault: no one is left to answer, and nothing was lost.
      if (!this.ended) logEnding(error, endings);
    } finally {
      this.end();
    }
  }
}

/**
 * `source`'s messages, each read (a wake-up's statements, and the pages after the first) outside the
 * trace context of the stream's request: its server span lasts as long as the stream, hours, and
 * would gather every read as its child, a trace that never ends (docs/decisions.md, "A delivery
 * belongs to the writer's trace"); a read is also shared by every stream woken alike
 * (event-feed.ts), not one request's.
 */
function readOutsideTrace<T>(source: AsyncIterable<T>): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator]: () => {
      const messages = source[Symbol.asyncIterator]();
      return {
        next: () => context.with(ROOT_CONTEXT, () => messages.next()),
        // As `for await` ends the source when its loop is left early.
        return: async (value?: unknown) => (await messages.return?.(value)) ?? { done: true, value: undefined },
      };
    },
  };
}

/** The connection took what was written, or closed: whichever comes first, the other unheard. */
async function drained(res: Response): Promise<void> {
  if (res.destroyed) return;
  const abandon = new AbortController();
  const { signal } = abandon;
  // An 'error' of the connection rejects the wait; the stream then ends on its 'close'.
  await Promise.race([once(res, 'drain', { signal }), once(res, 'close', { signal })])
    .catch(() => undefined)
    .finally(() => abandon.abort());
}

/** A stream that ended before its client left: an outage, the service stopping, or a fault. */
function logEnding(error: unknown, endings: StreamEndings): void {
  if (error instanceof FeedInterrupted) {
    if (error.reason === 'database_unavailable') endings.onUnavailable(error.message, error);
    return;
  }
  if (endings.isUnavailable(error))
    endings.onUnavailable(error instanceof Error ? error.message : String(error), error);
  else endings.logError(error);
}
