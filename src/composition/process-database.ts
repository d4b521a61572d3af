import type { Tracer } from '@opentelemetry/api';
import type { Logger } from 'pino';
import type { Config } from '../config';
import type { DatabaseAvailability } from '../infrastructure/database/health/database-availability';
import { announceMigration } from '../infrastructure/database/migrations/migrate-database';
import { type OpenDatabase, openDatabase } from '../infrastructure/database/open-database';
import type { ChangeListening } from './change-listening';
import type { RecordedMessages } from './job-queue';
import type { ProcessMetrics } from './process-metrics';

/** What the process's database reports to: its availability, its listeners, its traces and timings. */
export interface DatabaseObservers {
  /** A cluster worker: its primary applied the migrations once, before forking. */
  readonly worker: boolean;
  readonly availability: DatabaseAvailability;
  readonly changes: ChangeListening;
  readonly tracer: Tracer | undefined;
  /** The statements' times. */
  readonly metrics: Pick<ProcessMetrics, 'database'>;
  /** The webhook messages the statements recorded, which the database's notices tell. */
  readonly recorded: RecordedMessages;
  readonly logger: Logger;
}

/** Opens the database the settings name (the embedded one without DATABASE_URL), migrated unless a worker. */
export function openProcessDatabase(config: Config, observers: DatabaseObservers): Promise<OpenDatabase> {
  return openDatabase(
    { DATABASE_URL: config.databaseUrl, DATABASE_DIRECT_URL: config.databaseDirectUrl, DATA_DIR: config.dataDir },
    {
      migrate: !observers.worker,
      poolSize: config.databasePoolSize,
      onConnect: observers.changes.onConnect,
      preparedStatements: config.databasePreparedStatements,
      timeoutMs: config.databaseTimeoutMs,
      onAnswer: observers.availability.answered,
      onMigrationApplied: announceMigration,
      telemetry: { tracer: observers.tracer, times: observers.metrics.database },
      log: observers.logger,
      onNotice: observers.recorded.heard,
    },
  );
}
