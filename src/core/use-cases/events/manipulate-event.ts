import { instantAt } from '../../domain/date-time';
import { EventNotFound } from '../../domain/errors';
import { manipulate, type EventManipulation, type TimelineEvent } from '../../domain/timeline-event';
import { recordEventIn } from './record-event';
import type { IdGenerator } from '../../ports/id-generator';
import type { TransactionBoundary } from '../../ports/transaction-boundary';
import type { WallClock } from '../../ports/wall-clock';

export interface ManipulateEventInput {
  readonly accountId: string;
  readonly eventId: string;
  /** Free text: what the traveller does to the event. */
  readonly action: string;
  /** When the event happens after the manipulation. */
  readonly time: Date;
}

export interface ManipulatedEvent {
  readonly event: TimelineEvent;
  readonly manipulation: EventManipulation;
  /**
   * The event's latest manipulations, at most HISTORY_LISTED, first to last (the whole history is
   * `event.revision` long); the original is in the event itself.
   */
  readonly history: readonly EventManipulation[];
}

/**
 * Applies an action to an event, moving it to `time`. The event keeps its original time and every
 * manipulation is kept, so history is never lost and paradox checks can see what moved.
 */
export class ManipulateEvent {
  constructor(
    private readonly transactions: TransactionBoundary,
    private readonly ids: IdGenerator,
    private readonly clock: WallClock,
  ) {}

  execute(input: ManipulateEventInput): Promise<ManipulatedEvent> {
    return this.transactions.exclusive(input.accountId, async (repos) => {
      const now = this.clock.now();
      const original = await repos.events.findForAccount(input.accountId, input.eventId);
      if (!original) throw new EventNotFound(input.eventId);
      // Read before writing: a unit of work cannot read after its first write (ports/transaction-boundary.ts).
      const earlier = await repos.events.manipulationsOf(input.accountId, original.id, HISTORY_LISTED - 1);
      const { event, manipulation } = manipulate(original, {
        id: this.ids.newId('man'),
        action: input.action,
        time: instantAt(input.time.getTime()),
        now,
      });
      await repos.events.save(event);
      await repos.events.addManipulation(manipulation);
      // The manipulation is itself something that happened on the timeline.
      await recordEventIn(
        repos,
        this.ids,
        { accountId: input.accountId, now },
        {
          timelineId: event.timelineId,
          kind: 'manipulation',
          time: event.time,
          description: `Manipulation of '${shortened(original.description)}': ${input.action}`,
          location: event.location,
          subjectId: null,
        },
      );
      return { event, manipulation, history: [...earlier, manipulation] };
    });
  }
}

/**
 * An answer lists at most this many of an event's manipulations, the latest: an event manipulated
 * again and again would otherwise make every answer longer (docs/decisions.md#family-c-responses).
 */
export const HISTORY_LISTED = 100;

/** Quoting a whole description would let manipulations of manipulations grow without bound. */
function shortened(text: string, max = 100): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
