// pg-boss 12, one per process: the webhooks' jobs on the service's own database (a server, or the
// embedded one through its wire server), with a small pool of its own.
//
// pg-boss 12 is an ES module only, and the service compiles to CommonJS (module node20), where this
// import becomes require(). Node (>= 22.12) loads an ES module through require() when it has no
// top-level await, which pg-boss has none of, and so does Jest 30 on Node >= 24.9 under
// --experimental-vm-modules, which every test run passes: the plain import works in the build, under
// tsx and under Jest alike, where an `await import()` would make every caller asynchronous for nothing.
import type { Tracer } from '@opentelemetry/api';
import { type Job, type JobResult, PgBoss, type WorkOptions } from 'pg-boss';
import type { Logger } from 'pino';
import { inProcessSpan } from './job-spans';
import { QUEUES } from './queues';

export interface JobQueueSettings {
  readonly connectionString: string;
  /** pg-boss's own pool: its polls, heartbeats, completions and supervision share it. */
  readonly poolSize: number;
  readonly log: Logger;
  /** How long a stop lets the jobs under way finish before it fails them back to their queue. */
  readonly graceMs: number;
  /**
   * How often pg-boss looks for jobs expired or whose heartbeat stopped, returning them to their
   * queue, and counts the queues: a dead process's job is back within its heartbeat and this.
   */
  readonly superviseSeconds?: number;
  /** Makes each job a span of its own (job-spans.ts); without one (tracing off), none is made. */
  readonly tracer?: Tracer;
}

/** Supervision every 10 s: a job of a dead process is back within some 20 s (its 10 s heartbeat and this). */
const SUPERVISE_SECONDS = 10;
/** Done jobs are deleted every 5 minutes, so the table holds about an hour of them (deleteAfterSeconds). */
const MAINTENANCE_SECONDS = 300;

/** How a queue's jobs are worked: pg-boss's options, and how many jobs a worker takes at once (1). */
export type WorkerSettings = Pick<
  WorkOptions,
  'localConcurrency' | 'groupConcurrency' | 'localGroupConcurrency' | 'pollingIntervalSeconds'
> & { readonly batchSize?: number };

/** A queue's jobs now, as pg-boss last counted them (every supervision). */
export interface QueueCounts {
  readonly queue: string;
  /** Due later (a retry's wait, a window's end). */
  readonly deferred: number;
  /** Due, waiting for a worker. */
  readonly ready: number;
  readonly active: number;
}

export class JobQueue {
  /** The workers of each queue worked here, and how many jobs each takes at once: what wake() rouses. */
  private readonly workers = new Map<string, { readonly ids: string[]; readonly batchSize: number; next: number }>();

  private constructor(
    private readonly boss: PgBoss,
    private readonly settings: JobQueueSettings,
  ) {}

  /** Installs or updates pg-boss's schema and the queues, then supervises them until stopped. */
  static async start(settings: JobQueueSettings): Promise<JobQueue> {
    const seconds = settings.superviseSeconds ?? SUPERVISE_SECONDS;
    const boss = new PgBoss({
      connectionString: settings.connectionString,
      max: settings.poolSize,
      application_name: 'tns-job-queue',
      // Polling only: the embedded server delivers a NOTIFY to the committing connection alone,
      // and a pooler in transaction mode none.
      useListenNotify: false,
      // No cron schedules here: their timekeeper would only poll for nothing.
      schedule: false,
      superviseIntervalSeconds: seconds,
      monitorIntervalSeconds: seconds,
      maintenanceIntervalSeconds: MAINTENANCE_SECONDS,
    });
    // An EventEmitter's 'error' unheard ends the process: pg-boss's own failures are logged instead.
    boss.on('error', (error) => settings.log.error({ err: error }, 'job queue failed'));
    boss.on('warning', (warning) => settings.log.warn({ data: warning.data }, `job queue: ${warning.message}`));
    await boss.start();
    try {
      await declareQueues(boss);
    } catch (error) {
      await boss.stop({ graceful: false });
      throw error;
    }
    settings.log.info({ queues: QUEUES.map((queue) => queue.name) }, 'job queue started');
    return new JobQueue(boss, settings);
  }

  /**
   * Runs `handle` on each job of `queue`, `options` saying how many workers, how many jobs each takes
   * at once and how often an idle one looks. A worker whose take came back full takes again at once
   * (pg-boss's burst), so a backlog is worked through without waiting for the next look. A job whose
   * handler throws is failed alone, logged, and retried by the queue's settings (queues.ts); one
   * whose handler returns is done.
   */
  async work<T>(queue: string, options: WorkerSettings, handle: (job: Job<T>) => Promise<void>): Promise<void> {
    const batchSize = options.batchSize ?? 1;
    const { localConcurrency = 1, ...rest } = options;
    // Each worker registered alone (pg-boss's localConcurrency of N names only the first), so that
    // wake() can rouse as many as there are jobs for.
    const ids: string[] = [];
    for (let n = 0; n < localConcurrency; n++)
      ids.push(
        await this.boss.work<T>(
          queue,
          { ...rest, localConcurrency: 1, batchSize, burstWhenBatchFull: batchSize > 1, perJobResults: true },
          (jobs) => Promise.all(jobs.map((job) => this.settle(queue, job, handle))),
        ),
      );
    this.workers.set(queue, { ids, batchSize, next: 0 });
  }

  /**
   * Has enough workers of `queue` in this process to take `jobs` just made here look now rather
   * than at their next poll, each in turn; a worker still busy looks again as soon as it is done.
   */
  wake(queue: string, jobs: number): void {
    const workers = this.workers.get(queue);
    if (!workers) return;
    const waking = Math.min(workers.ids.length, Math.ceil(jobs / workers.batchSize));
    for (let n = 0; n < waking; n++) {
      this.boss.notifyWorker(workers.ids[workers.next] as string);
      workers.next = (workers.next + 1) % workers.ids.length;
    }
  }

  private async settle<T>(queue: string, job: Job<T>, handle: (job: Job<T>) => Promise<void>): Promise<JobResult> {
    try {
      await inProcessSpan(this.settings.tracer, job, () => handle(job));
      return { id: job.id, status: 'completed' };
    } catch (error) {
      this.settings.log.error({ err: error, queue, job_id: job.id }, 'job failed');
      return { id: job.id, status: 'failed', output: error };
    }
  }

  async counts(): Promise<QueueCounts[]> {
    const queues = await this.boss.getQueues(QUEUES.map((queue) => queue.name));
    return queues.map((queue) => ({
      queue: queue.name,
      deferred: queue.deferredCount,
      ready: queue.readyCount,
      active: queue.activeCount,
    }));
  }

  /**
   * Stops fetching, lets the jobs under way finish for at most the grace, then fails those still
   * running (their queue tries them again) and closes the pool.
   */
  async stop(): Promise<void> {
    await this.boss.stop({ graceful: true, timeout: this.settings.graceMs });
    this.settings.log.info('job queue stopped');
  }
}

/**
 * pg-boss's schema and the queues, installed or brought up to date, with nothing left running: for
 * a database prepared before any process serves it (the tests' template databases).
 */
export async function installJobQueue(connectionString: string): Promise<void> {
  const boss = new PgBoss({ connectionString, max: 1, supervise: false, schedule: false });
  const failures: unknown[] = [];
  boss.on('error', (error) => failures.push(error));
  await boss.start();
  try {
    await declareQueues(boss);
  } finally {
    await boss.stop({ graceful: false });
  }
  if (failures.length > 0) throw new AggregateError(failures, 'installing the job queue failed');
}

/** Creates each queue, or brings its settings up to date (pg-boss cannot change a queue's policy). */
async function declareQueues(boss: PgBoss): Promise<void> {
  for (const { name, policy, ...settings } of QUEUES) {
    await boss.createQueue(name, { ...settings, policy });
    await boss.updateQueue(name, settings);
  }
}
