// The webhooks' queues, as pg-boss keeps them (its row in pgboss.queue). The database's functions
// that make their jobs (enqueue_webhook_delivery, enqueue_window_check: migration
// 20261129082908_webhook_recording) copy the policy, retry, expiry and retention settings from
// that row, as pg-boss's send() does, so they are said once, here.
import type { Queue } from 'pg-boss';

/** One attempt to deliver a message; the job's group is its endpoint. */
export const DELIVERY_QUEUE = 'webhook-delivery';
/** A look at a timeline whose travel window has passed; one waiting per timeline (policy short). */
export const WINDOW_CHECK_QUEUE = 'webhook-window-check';

/**
 * What both queues share. A job is one attempt (a delivery's next one is a job of its own), so
 * pg-boss's retries are for what went wrong around it: the handler threw (the database was away),
 * or its process died, which a heartbeat missed for 10 s tells (the fewest pg-boss allows) and the
 * job expires after a minute (an attempt takes at most 15 s). Retried for some hours, backing off
 * to 10 minutes apart. Done jobs are deleted after an hour: the attempts' own table is the log.
 */
const EACH: Omit<Queue, 'name'> = {
  retryLimit: 20,
  retryDelay: 5,
  retryBackoff: true,
  retryDelayMax: 600,
  expireInSeconds: 60,
  heartbeatSeconds: 10,
  deleteAfterSeconds: 3_600,
};

export const QUEUES: readonly Queue[] = [
  { ...EACH, name: DELIVERY_QUEUE, policy: 'standard' },
  { ...EACH, name: WINDOW_CHECK_QUEUE, policy: 'short' },
];

/** At most this many of one endpoint's attempts at once, across every process (pg-boss's group concurrency). */
export const ENDPOINT_CONCURRENCY = 4;
