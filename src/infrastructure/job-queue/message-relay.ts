// The relay between the writes and the delivery queue (docs/webhooks.md, "Recording"): a write
// records its messages in the outbox, and each process moves them into pg-boss's job table here,
// a batch per statement, a few due jobs per endpoint at a time (relay_webhook_messages, migration
// 20261129201927_webhook_outbox). It looks when told that this process's writes recorded messages,
// and otherwise seldom: an idle relay costs the database next to nothing. One relay works at a
// time in the instance; another finding it busy looks again shortly.
import { ROOT_CONTEXT, SpanKind, type Tracer } from '@opentelemetry/api';
import type { Logger } from 'pino';
import { isDatabaseUnavailable } from '../database/driver/database-failures';
import {
  ATTR_MESSAGING_DESTINATION_NAME,
  ATTR_MESSAGING_OPERATION_NAME,
  ATTR_MESSAGING_OPERATION_TYPE,
  ATTR_MESSAGING_SYSTEM,
} from './job-spans';
import { DELIVERY_QUEUE, ENDPOINT_CONCURRENCY } from './queues';

const ATTR_MESSAGING_BATCH_MESSAGE_COUNT = 'messaging.batch.message_count';

export interface RelaySettings {
  /**
   * How often the relay looks untold: for messages no process told its relay of (recorded while the
   * queue was down, or by a process that died before its look) and an endpoint's messages held back
   * at `perEndpoint`. A message this process's write recorded is looked for at once (`soon`).
   */
  readonly everyMs: number;
  /**
   * How soon it looks again after a look that moved messages, found another relay at work, or was
   * told of more meanwhile: while a backlog lasts, an endpoint's workers take their due jobs faster
   * than `perEndpoint` every `everyMs` would give them. Told many times, it looks no more often.
   */
  readonly busyEveryMs: number;
  /**
   * Due jobs an endpoint may have waiting for a worker: enough for its workers to go on between two
   * looks, and few, as pg-boss's fetch walks every one of them while the endpoint is at its
   * concurrency.
   */
  readonly perEndpoint: number;
  /** Messages a statement moves at most; a full one is followed at once by another. */
  readonly atMost: number;
}

export const RELAY: RelaySettings = {
  everyMs: 2_000,
  busyEveryMs: 25,
  perEndpoint: 8 * ENDPOINT_CONCURRENCY,
  atMost: 500,
};

/** What `RelayParts.relay` answers when another relay is at work (relay_webhook_messages_when_free). */
export const BUSY = -1;

/** A relay's failures are logged once a minute at most: the database away fails every look. */
const LOG_FAILURES_EVERY_MS = 60_000;

export interface RelayParts {
  /** One statement: messages moved to the queue, 0 when none waits, BUSY when another relay is at work. */
  readonly relay: (perEndpoint: number, atMost: number) => Promise<number>;
  /** Told of each batch moved: wakes this process's delivery workers, counts them. */
  readonly relayed: (count: number) => void;
  readonly log: Logger;
  readonly tracer?: Tracer;
  readonly now?: () => number;
}

export class MessageRelay {
  private timer: NodeJS.Timeout | null = null;
  /** When the timer fires: a look told for sooner moves it earlier, never later. */
  private dueAt = Infinity;
  private looking: Promise<void> | null = null;
  /** Told of messages while a look was under way: it may have missed them, so the next comes soon. */
  private toldMeanwhile = false;
  private lastLookEndedAt = -Infinity;
  private stopped = false;
  private failures = 0;
  private lastFailureLoggedAt = -Infinity;

  constructor(
    private readonly parts: RelayParts,
    private readonly settings: RelaySettings = RELAY,
  ) {}

  /** Looks at once (what waited while no process ran), then as told and as `settings` say until stopped. */
  start(): this {
    this.schedule(0);
    return this;
  }

  /**
   * Told that a statement of this process recorded messages, once it ended (its notice: composition's
   * RecordedMessages): looks at once, or `busyEveryMs` after the last look at the soonest.
   */
  soon(): void {
    if (this.stopped) return;
    if (this.looking) {
      this.toldMeanwhile = true;
      return;
    }
    this.schedule(Math.max(0, this.lastLookEndedAt + this.settings.busyEveryMs - Date.now()));
  }

  /** Stops looking; a look under way finishes first. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.looking;
  }

  /**
   * One look: statements until one moves less than a batch; how many messages they moved, or BUSY
   * when another relay was at work before any moved. Never throws: a failure is logged, and counts
   * as nothing moved.
   */
  async look(): Promise<number> {
    const { perEndpoint, atMost } = this.settings;
    let moved = 0;
    let busy = false;
    try {
      for (;;) {
        const startedAt = this.now();
        const count = await this.parts.relay(perEndpoint, atMost);
        if (count === BUSY) {
          busy = moved === 0;
          break;
        }
        moved += count;
        if (count > 0) {
          this.parts.relayed(count);
          this.span(startedAt, count);
        }
        if (count < atMost || this.stopped) break;
      }
      this.failures = 0;
    } catch (error) {
      this.failed(error);
    }
    return busy ? BUSY : moved;
  }

  /** The next look in `afterMs`, unless one is due sooner. */
  private schedule(afterMs: number): void {
    // On the timers' clock, not `parts.now` (which tests set for the failures' log).
    const dueAt = Date.now() + afterMs;
    if (this.stopped || dueAt >= this.dueAt) return;
    if (this.timer) clearTimeout(this.timer);
    this.dueAt = dueAt;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.dueAt = Infinity;
      let moved = 0;
      this.looking = this.look()
        .then((count) => void (moved = count))
        .finally(() => {
          this.looking = null;
          this.lastLookEndedAt = Date.now();
          const again = moved !== 0 || this.toldMeanwhile;
          this.toldMeanwhile = false;
          this.schedule(again ? this.settings.busyEveryMs : this.settings.everyMs);
        });
    }, afterMs);
    this.timer.unref();
  }

  /**
   * A batch moved, as a PRODUCER span of OpenTelemetry's messaging conventions (`send <queue>`), a
   * root of its own: a look that moves nothing makes none, so an idle relay fills no trace.
   */
  private span(startTime: number, count: number): void {
    this.parts.tracer
      ?.startSpan(
        `send ${DELIVERY_QUEUE}`,
        {
          kind: SpanKind.PRODUCER,
          startTime,
          attributes: {
            [ATTR_MESSAGING_SYSTEM]: 'pg-boss',
            [ATTR_MESSAGING_OPERATION_TYPE]: 'send',
            [ATTR_MESSAGING_OPERATION_NAME]: 'relay',
            [ATTR_MESSAGING_DESTINATION_NAME]: DELIVERY_QUEUE,
            [ATTR_MESSAGING_BATCH_MESSAGE_COUNT]: count,
          },
        },
        ROOT_CONTEXT,
      )
      .end();
  }

  private failed(error: unknown): void {
    this.failures++;
    const now = this.now();
    if (now - this.lastFailureLoggedAt < LOG_FAILURES_EVERY_MS) return;
    this.lastFailureLoggedAt = now;
    // A database away or read-only (a failover) is an outage, reported where outages are; here it
    // only delays the messages. Anything else is this relay's own fault.
    this.parts.log[isDatabaseUnavailable(error) ? 'warn' : 'error'](
      { err: error, failed_looks: this.failures },
      'webhook relay failed: recorded messages wait in the outbox until it works again',
    );
  }

  private now(): number {
    return (this.parts.now ?? Date.now)();
  }
}
