import type { DeliveryJob, WebhookJobs, WindowCheck } from '../../../core/ports/webhook-jobs';
import type { SqlRunner } from '../../database/driver/sql-runner';
import { ENQUEUE_DELIVERY, ENQUEUE_WINDOW_CHECK } from './statements/webhooks';

/**
 * The jobs as rows of pg-boss's table, made by the database's own functions, as its triggers make
 * them: each a statement on the service's pool, so the job queue's process need not be this one.
 */
export class PostgresWebhookJobs implements WebhookJobs {
  constructor(private readonly sql: SqlRunner) {}

  async scheduleDelivery(job: DeliveryJob, at: Date): Promise<void> {
    await ENQUEUE_DELIVERY.run(this.sql, { ...job, at });
  }

  async scheduleWindowCheck(check: WindowCheck, at: Date): Promise<void> {
    await ENQUEUE_WINDOW_CHECK.run(this.sql, { ...check, at });
  }
}
