import { recordEvent, type EventKind } from '../../domain/timeline-event';
import type { IdGenerator } from '../../ports/id-generator';
import type { Repositories } from '../../ports/repositories';

export interface NewEvent {
  readonly timelineId: string;
  readonly kind: EventKind;
  readonly time: Date;
  readonly description: string;
  readonly location: string;
  readonly subjectId: string | null;
}

/** Records an event of the account inside the caller's transaction, with a fresh id. */
export function recordEventIn(
  repos: Repositories,
  ids: IdGenerator,
  context: { readonly accountId: string; readonly now: Date },
  event: NewEvent,
): Promise<void> {
  return repos.events.add(recordEvent({ ...event, ...context, id: ids.newId('evt') }));
}

/** The arrival of a travel, whichever family moved the traveller. */
export function arrivalEvent(
  travel: { readonly id: string; readonly toTimelineId: string; readonly arrivalTime: Date },
  location: string,
): NewEvent {
  return {
    timelineId: travel.toTimelineId,
    kind: 'arrival',
    time: travel.arrivalTime,
    description: `Traveller arrives at ${location}`,
    location,
    subjectId: travel.id,
  };
}
