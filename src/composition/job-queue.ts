// The webhooks' job queue of this process (docs/webhooks.md, "Delivering"): pg-boss on the
// service's database, started after the migrations and the container, before the HTTP listener
// (a write's trigger makes jobs in pg-boss's tables, which must be there), and stopped after it.
import { trace, type Tracer } from '@opentelemetry/api';
import type { Container } from 'inversify';
import type { Logger } from 'pino';
import { RecordWindowClosed } from '../core/use-cases/webhooks/record-window-closed';
import { DeliverWebhookMessage, type DeliveryReport } from '../core/use-cases/webhooks/deliver-webhook-message';
import type { DeliveryJob } from '../core/ports/webhook-jobs';
import { isReadOnly } from '../infrastructure/database/driver/database-failures';
import type { DatabaseNotice } from '../infrastructure/database/driver/prisma-client';
import type { OpenDatabase } from '../infrastructure/database/open-database';
import { JobQueue } from '../infrastructure/job-queue/job-queue';
import { MessageRelay, type RelaySettings } from '../infrastructure/job-queue/message-relay';
import { DELIVERY_QUEUE } from '../infrastructure/job-queue/queues';
import { type DeliveryHandler, workDeliveries, workWindowChecks } from '../infrastructure/job-queue/workers';
import type { WebhookMetrics } from '../infrastructure/metrics/webhook-metrics';
import { PostgresWebhookMessages, recordedMessagesOf } from '../infrastructure/persistence/postgres/webhook-messages';
import { JOB_QUEUE_CONNECTIONS } from '../settings';

export interface JobQueueParts {
  readonly database: Pick<OpenDatabase, 'connectionString' | 'sql'>;
  readonly container: Container;
  readonly logger: Logger;
  readonly metrics: WebhookMetrics | undefined;
  /** How long a stop lets the jobs under way finish (SHUTDOWN_GRACE_MS). */
  readonly graceMs: number;
  /** Makes each job a span, each attempt's POST its child (tracing on). */
  readonly tracer?: Tracer;
  /** One attempt of a message. Default: DeliverWebhookMessage of the container, counted and logged. */
  readonly deliveries?: DeliveryHandler;
  /** Tells the relay of the messages this process's writes recorded (its pool's notices). */
  readonly recorded?: RecordedMessages;
  /** How the relay looks. Default RELAY. */
  readonly relaySettings?: RelaySettings;
}

/** This process's queue: running, or waiting for its database to take writes. */
export interface ProcessJobQueue {
  stop(): Promise<void>;
}

/** On a delivery's job span: how long it waited for its account's requests in this process. */
const ATTR_GAVE_WAY_MS = 'tns.webhook.gave_way_ms';

/** How often a queue that could not start on a database taking no writes (a standby) tries again. */
const START_AGAIN_EVERY_MS = 30_000;

/**
 * The queue started, its workers running, its backlog in the metrics. On a database that takes no
 * writes (a standby at DATABASE_URL, which the service serves as read-only: docs/operations.md)
 * pg-boss cannot install its schema nor take a job: the process starts without it, and the queue
 * starts once the database takes writes (a failover's promotion), as the writes do.
 */
export async function startJobQueue(parts: JobQueueParts): Promise<ProcessJobQueue> {
  try {
    return await runningQueue(parts);
  } catch (error) {
    if (!takesNoWrites(error)) throw error;
    return queueOnceWritable(parts);
  }
}

function queueOnceWritable(parts: JobQueueParts): ProcessJobQueue {
  const { logger } = parts;
  logger.warn('job queue waiting: the database takes no writes (a standby); its start is tried again every 30 s');
  let queue: ProcessJobQueue | null = null;
  let starting: Promise<void> | null = null;
  let stopped = false;
  const timer = setInterval(() => {
    starting ??= runningQueue(parts)
      .then(
        async (started) => {
          clearInterval(timer);
          if (stopped) return started.stop();
          queue = started;
        },
        (error: unknown) => {
          if (!takesNoWrites(error)) logger.error({ err: error }, 'job queue failed to start');
        },
      )
      .finally(() => (starting = null));
  }, START_AGAIN_EVERY_MS);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await starting;
      await queue?.stop();
    },
  };
}

/** A refusal of a server that takes no writes (25006), as pg-boss passes it on or wraps it. */
function takesNoWrites(error: unknown): boolean {
  return isReadOnly(error) || (error instanceof Error && isReadOnly(error.cause));
}

/**
 * The queue started, its workers running, and the relay that gives recorded messages their jobs,
 * told of this process's writes that recorded messages and of each attempt done (which may make
 * room for an endpoint's held-back messages); stopped in the other order.
 */
async function runningQueue(parts: JobQueueParts): Promise<ProcessJobQueue> {
  const { database, container, logger, metrics } = parts;
  const queue = await JobQueue.start({
    connectionString: database.connectionString,
    // One, on a server as on the embedded one (one session, served an exchange at a time).
    poolSize: JOB_QUEUE_CONNECTIONS,
    log: logger,
    graceMs: parts.graceMs,
    tracer: parts.tracer,
  });
  const messages = new PostgresWebhookMessages(database.sql);
  const relay = new MessageRelay(
    {
      relay: (perEndpoint, atMost) => messages.relay(perEndpoint, atMost),
      relayed: (count) => {
        metrics?.messagesRelayed(count);
        queue.wake(DELIVERY_QUEUE, count);
      },
      log: logger,
      tracer: parts.tracer,
    },
    parts.relaySettings,
  );
  try {
    const recordWindowClosed = container.get(RecordWindowClosed);
    await workWindowChecks(queue, (check) => recordWindowClosed.execute(check));
    const deliveries = parts.deliveries ?? deliveringWith(container.get(DeliverWebhookMessage), parts);
    await workDeliveries(queue, async (job, signal) => {
      try {
        await deliveries(job, signal);
      } finally {
        relay.soon();
      }
    });
  } catch (error) {
    await queue.stop();
    throw error;
  }
  metrics?.watch({ counts: () => queue.counts(), oldestPendingAt: () => messages.oldestPendingAt() });
  relay.start();
  parts.recorded?.tell(relay);
  return {
    async stop() {
      parts.recorded?.tell(null);
      await relay.stop();
      await queue.stop();
    },
  };
}

/**
 * Each due attempt delivered, in the metrics, and on a line of its own when it did not deliver;
 * the time it gave way to its account's requests on its job's span too.
 */
function deliveringWith(deliver: DeliverWebhookMessage, { logger, metrics }: JobQueueParts): DeliveryHandler {
  return async (job) => {
    const report = await deliver.execute(job);
    metrics?.gaveWay(report.gaveWayMs / 1000);
    if (report.gaveWayMs > 0) trace.getActiveSpan()?.setAttribute(ATTR_GAVE_WAY_MS, Math.round(report.gaveWayMs));
    if (!report.sent) return;
    metrics?.attempted(report.outcome.kind, report.result.durationMs / 1000);
    if (report.outcome.kind !== 'delivered') logger.warn(attemptLine(job, report), 'webhook attempt failed');
  };
}

/** What an operator needs of an attempt that did not deliver; never its body, secret or URL's query. */
function attemptLine(job: DeliveryJob, report: Extract<DeliveryReport, { sent: true }>) {
  const { outcome, result } = report;
  return {
    account_id: job.accountId,
    endpoint_id: job.endpointId,
    message_id: job.messageId,
    attempt: report.attempt,
    status: result.status,
    error: result.error,
    duration_ms: Math.round(result.durationMs),
    gave_way_ms: Math.round(report.gaveWayMs),
    outcome: outcome.kind,
    next_attempt_at: outcome.kind === 'retry' ? outcome.nextAttemptAt.toISOString() : null,
    ...(outcome.disable && { endpoint_disabled: outcome.disable }),
  };
}

/** Lets the jobs under way finish within the grace, then stops the queue (after the HTTP listener). */
export function stopJobQueue(queue: ProcessJobQueue): Promise<void> {
  return queue.stop();
}

/**
 * The webhook messages this process's statements recorded, as their notices tell once each
 * statement has ended (PrismaClientOptions.onNotice): counted, and the running relay told to look
 * at once rather than at its next look untold.
 */
export class RecordedMessages {
  private relay: Pick<MessageRelay, 'soon'> | null = null;

  constructor(private readonly metrics: WebhookMetrics | undefined) {}

  readonly heard = (notice: DatabaseNotice): void => {
    const recorded = recordedMessagesOf(notice);
    if (!recorded) return;
    this.metrics?.messagesRecorded(recorded.type, recorded.count);
    this.relay?.soon();
  };

  /** The relay to tell while the queue runs; null once it stops. */
  tell(relay: Pick<MessageRelay, 'soon'> | null): void {
    this.relay = relay;
  }
}
