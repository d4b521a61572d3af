// The service's job queue in the test's process, as a serving process starts it
// (composition/job-queue.ts): its workers deliver with the container's use cases.
import type { Tracer } from '@opentelemetry/api';
import type { Container } from 'inversify';
import { pino } from 'pino';
import { type ProcessJobQueue, type RecordedMessages, startJobQueue } from '../../../src/composition/job-queue';
import type { RelaySettings } from '../../../src/infrastructure/job-queue/message-relay';
import type { WebhookMetrics } from '../../../src/infrastructure/metrics/webhook-metrics';
import type { SqlRunner } from '../../../src/infrastructure/database/driver/sql-runner';

export interface QueueDatabase {
  readonly connectionString: string;
  readonly sql: SqlRunner;
}

export function startInProcessQueue(
  database: QueueDatabase,
  container: Container,
  options: {
    readonly tracer?: Tracer;
    readonly metrics?: WebhookMetrics;
    /** Told of the messages the test's writes recorded, as the service's pool tells it (its onNotice). */
    readonly recorded?: RecordedMessages;
    readonly relaySettings?: RelaySettings;
  } = {},
): Promise<ProcessJobQueue> {
  return startJobQueue({
    database: { connectionString: database.connectionString, sql: database.sql },
    container,
    logger: pino({ level: 'silent' }),
    metrics: options.metrics,
    graceMs: 1_000,
    tracer: options.tracer,
    recorded: options.recorded,
    relaySettings: options.relaySettings,
  });
}
