// What the webhooks' queues run, and how many at once. The handlers are the core's: a delivery's
// (one attempt of a message, the sender's) and a window's check (RecordWindowClosed).
import type { Job } from 'pg-boss';
import type { DeliveryJob, WindowCheck } from '../../core/ports/webhook-jobs';
import type { JobQueue } from './job-queue';
import { DELIVERY_QUEUE, ENDPOINT_CONCURRENCY, WINDOW_CHECK_QUEUE } from './queues';

/**
 * One attempt of a message. Returning completes the job; throwing fails it, and the queue tries it
 * again (queues.ts), as it does the job of a process that died. `signal` aborts when the job
 * expires or the process stops past its grace.
 */
export type DeliveryHandler = (job: DeliveryJob, signal: AbortSignal) => Promise<void>;

/** A timeline's window checked when due; throwing fails the job, tried again later. */
export type WindowCheckHandler = (check: WindowCheck) => Promise<unknown>;

export interface DeliveryWork {
  /**
   * Workers in this process. A worker waits for the slowest attempt of its take, and a slow or dead
   * endpoint has at most ENDPOINT_CONCURRENCY attempts under way, so it holds at most that many
   * workers: the rest go on with the others' deliveries.
   */
  readonly workers: number;
  /**
   * Attempts a worker takes at once. While its takes come back full it takes again at once, so a
   * backlog is delivered as fast as the endpoints answer; a take of one would wait for the next look.
   */
  readonly batchSize: number;
  /**
   * How often an idle worker looks for a due attempt untold. The relay wakes this process's workers
   * for the jobs it makes, so this is for the rest: a retry whose time came (5 s after a failure
   * at the soonest), a job another process's busy workers left, one held back at its endpoint's
   * concurrency. Every worker polls: seldom, so an idle process costs the database little.
   */
  readonly pollingSeconds: number;
}

/** At most 32 attempts at once; four dead endpoints to hold every worker for an attempt's 15 s. */
export const DELIVERY_WORK: DeliveryWork = { workers: 16, batchSize: 2, pollingSeconds: 5 };
/** Windows close a few a minute at most: one worker, looking every 2 s. */
const WINDOW_CHECK_POLLING_SECONDS = 2;

export async function workDeliveries(
  queue: JobQueue,
  handler: DeliveryHandler,
  work: DeliveryWork = DELIVERY_WORK,
): Promise<void> {
  await queue.work<unknown>(
    DELIVERY_QUEUE,
    {
      localConcurrency: work.workers,
      batchSize: work.batchSize,
      groupConcurrency: ENDPOINT_CONCURRENCY,
      pollingIntervalSeconds: work.pollingSeconds,
    },
    (job) => handler(deliveryJobOf(job), job.signal),
  );
}

export async function workWindowChecks(
  queue: JobQueue,
  handler: WindowCheckHandler,
  pollingSeconds: number = WINDOW_CHECK_POLLING_SECONDS,
): Promise<void> {
  await queue.work<unknown>(WINDOW_CHECK_QUEUE, { pollingIntervalSeconds: pollingSeconds }, async (job) => {
    await handler(windowCheckOf(job));
  });
}

/** A delivery job as the database made it: data {accountId, messageId}, its group the endpoint. */
export function deliveryJobOf(job: Job<unknown>): DeliveryJob {
  if (typeof job.groupId !== 'string') throw new MalformedJob(job, 'groupId');
  return { accountId: textOf(job, 'accountId'), messageId: textOf(job, 'messageId'), endpointId: job.groupId };
}

export function windowCheckOf(job: Job<unknown>): WindowCheck {
  return { accountId: textOf(job, 'accountId'), timelineId: textOf(job, 'timelineId') };
}

function textOf(job: Job<unknown>, field: string): string {
  const data = job.data;
  const value: unknown = typeof data === 'object' && data !== null ? Reflect.get(data, field) : undefined;
  if (typeof value !== 'string') throw new MalformedJob(job, field);
  return value;
}

/** A job whose data is not what the database's functions make: a defect, logged as the job fails. */
export class MalformedJob extends Error {
  constructor(job: Job<unknown>, field: string) {
    super(`job ${job.id} of ${job.name} has no ${field}`);
    this.name = 'MalformedJob';
  }
}
