import type { Timeline } from '../../domain/timeline';
import type { TransactionBoundary } from '../../ports/transaction-boundary';
import type { WallClock } from '../../ports/wall-clock';
import type { WebhookJobs, WindowCheck } from '../../ports/webhook-jobs';
import type { WebhookMessages } from '../../ports/webhook-messages';

/**
 * A window's check is due a second after its deadline: the window has passed then
 * (Timeline.windowHasPassed), and the deadline is in whole seconds. The database schedules the
 * checks of new windows the same way (window_check_due, migration 20261129082908_webhook_recording).
 */
export const WINDOW_CHECK_DELAY_MS = 1_000;

export function windowCheckDue(timeline: Timeline): Date | null {
  const deadline = timeline.deadline;
  return deadline && new Date(deadline.getTime() + WINDOW_CHECK_DELAY_MS);
}

export type WindowCheckOutcome =
  /** The timeline is gone (its account deleted) or has no window. */
  | { readonly outcome: 'no_window' }
  /** Run before the window passed on this clock: checked again when due. */
  | { readonly outcome: 'rescheduled'; readonly due: Date }
  /** The journey was completed within the window: nothing to say. */
  | { readonly outcome: 'not_closed' }
  /** The window closed on the journey: a message for each subscribed endpoint, `messages` of them new. */
  | { readonly outcome: 'recorded'; readonly messages: number };

/**
 * timeline.window_closed, when a window's check is due: the timeline read as the service shows it
 * (GetTimeline's status as of now), and the message recorded when the window closed on it,
 * whichever state made it close. A check run twice (its process died after recording) records
 * nothing more.
 */
export class RecordWindowClosed {
  constructor(
    private readonly transactions: TransactionBoundary,
    private readonly clock: WallClock,
    private readonly messages: WebhookMessages,
    private readonly jobs: WebhookJobs,
  ) {}

  async execute(input: WindowCheck): Promise<WindowCheckOutcome> {
    const timeline = await this.transactions.read((repos) =>
      repos.timelines.findForAccount(input.accountId, input.timelineId),
    );
    const due = timeline && windowCheckDue(timeline);
    if (!timeline || !due) return { outcome: 'no_window' };
    const now = this.clock.now();
    // The job's time is the database's: on a clock behind it, the window has not passed yet here.
    if (!timeline.windowHasPassed(now)) {
      await this.jobs.scheduleWindowCheck(input, due);
      return { outcome: 'rescheduled', due };
    }
    const shown = timeline.settledAt(now);
    if (shown.status !== 'expired') return { outcome: 'not_closed' };
    return { outcome: 'recorded', messages: await this.messages.recordWindowClosed(shown) };
  }
}
