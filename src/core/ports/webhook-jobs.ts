/** One attempt to deliver a message to its endpoint (docs/webhooks.md). */
export interface DeliveryJob {
  readonly accountId: string;
  readonly messageId: string;
  readonly endpointId: string;
}

/** A look, once a timeline's travel window has passed, at whether it closed on the journey. */
export interface WindowCheck {
  readonly accountId: string;
  readonly timelineId: string;
}

/**
 * The webhooks' jobs, each run when due and at least once, even when the process running it dies.
 * Each call here is a statement of its own; the database's triggers schedule the jobs of the
 * changes they record in the statement of the change itself.
 */
export interface WebhookJobs {
  /** An attempt at `at` (at once when `at` has passed), at most 4 of an endpoint's at a time. */
  scheduleDelivery(job: DeliveryJob, at: Date): Promise<void>;
  /** A check of the timeline at `at`; one already waiting for it is not made twice. */
  scheduleWindowCheck(check: WindowCheck, at: Date): Promise<void>;
}
