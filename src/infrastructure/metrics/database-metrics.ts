import { DB_SYSTEM_NAME_VALUE_POSTGRESQL } from '@opentelemetry/semantic-conventions';
import { Gauge, Histogram, type Registry } from 'prom-client';
import type { PoolUsage } from '../database/driver/prisma-client';
import type { StatementTimes } from '../database/driver/statement-telemetry';

/** OpenTelemetry's advice for `db.client.operation.duration`, in seconds. */
const DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10];

/**
 * OpenTelemetry's `db.client.connection.pool.name`: a process has one pool, whatever server it
 * reaches (an embedded server's address changes at each start, which would start new series).
 */
const POOL_NAME = 'main';

type StatementLabels = 'db_system_name' | 'db_query_summary' | 'error_type';

/**
 * The database client metrics of OpenTelemetry's conventions, as Prometheus names them: each
 * statement's duration by its summary (`SELECT events`: a few dozen series, bounded by the
 * service's statements), the pool's connections and the time waited for one.
 */
export class DatabaseMetrics implements StatementTimes {
  private readonly duration: Histogram<StatementLabels>;
  private readonly waits: Histogram.Internal<'db_client_connection_pool_name'>;
  /** Each summary's series, found once (as HttpMetrics does for routes). */
  private readonly timed = new Map<string, Histogram.Internal<StatementLabels>>();

  constructor(private readonly registry: Registry) {
    this.duration = new Histogram({
      name: 'db_client_operation_duration_seconds',
      help: 'Duration of database statements, by summary (operation and tables); error_type set when one failed.',
      labelNames: ['db_system_name', 'db_query_summary', 'error_type'],
      buckets: DURATION_BUCKETS,
      registers: [registry],
    });
    this.waits = new Histogram({
      name: 'db_client_connection_wait_time_seconds',
      help: 'Time a statement or unit of work waited for a connection of the database pool.',
      labelNames: ['db_client_connection_pool_name'],
      buckets: DURATION_BUCKETS,
      registers: [registry],
    }).labels({ db_client_connection_pool_name: POOL_NAME });
  }

  statement(summary: string, seconds: number, errorType: string): void {
    const key = `${summary}\n${errorType}`;
    let series = this.timed.get(key);
    if (!series) {
      series = this.duration.labels({
        db_system_name: DB_SYSTEM_NAME_VALUE_POSTGRESQL,
        db_query_summary: summary,
        error_type: errorType,
      });
      this.timed.set(key, series);
    }
    series.observe(seconds);
  }

  connectionWaited(seconds: number): void {
    this.waits.observe(seconds);
  }

  /** The pool's connections, read from node-postgres' own counts at each scrape. */
  watchPool(pool: PoolUsage): void {
    const registers = [this.registry];
    new Gauge({
      name: 'db_client_connection_count',
      help: 'Connections of the database pool, by state: used, idle.',
      labelNames: ['db_client_connection_pool_name', 'db_client_connection_state'],
      registers,
      collect() {
        const { totalCount, idleCount } = pool;
        this.set(
          { db_client_connection_pool_name: POOL_NAME, db_client_connection_state: 'used' },
          totalCount - idleCount,
        );
        this.set({ db_client_connection_pool_name: POOL_NAME, db_client_connection_state: 'idle' }, idleCount);
      },
    });
    new Gauge({
      name: 'db_client_connection_max',
      help: 'The most connections the database pool opens (DATABASE_POOL_SIZE).',
      labelNames: ['db_client_connection_pool_name'],
      registers,
      collect() {
        this.set({ db_client_connection_pool_name: POOL_NAME }, pool.options.max);
      },
    });
    new Gauge({
      name: 'db_client_connection_pending_requests',
      help: 'Requests waiting for a connection of the database pool.',
      labelNames: ['db_client_connection_pool_name'],
      registers,
      collect() {
        this.set({ db_client_connection_pool_name: POOL_NAME }, pool.waitingCount);
      },
    });
  }
}
