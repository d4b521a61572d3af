/**
 * What the service records on a timeline. The kinds tell which action recorded the event, and
 * whether other records depend on it (an item on its retrieval, an anchor on its setting, a
 * travel on its arrival).
 */
export type EventKind = 'arrival' | 'anchor_set' | 'item_retrieved' | 'manipulation';

export interface TimelineEvent {
  readonly accountId: string;
  readonly id: string;
  readonly timelineId: string;
  readonly kind: EventKind;
  /** When the event happens now, after any manipulation. */
  readonly time: Date;
  /** When it happened as first recorded: a manipulation never loses the original. */
  readonly originalTime: Date;
  readonly description: string;
  readonly location: string;
  /** The record that depends on the event: an item, anchor or travel id; null for manipulations. */
  readonly subjectId: string | null;
  /** Wall-clock moment of recording. */
  readonly recordedAt: Date;
  /** How many manipulations have been applied to it. */
  readonly revision: number;
}

/**
 * An event as a listing shows it: what an answer tells of it, without the record that depends on it
 * or when it was recorded, which a page of hundreds of events would otherwise read and carry for
 * nothing (docs/performance.md).
 */
export type ListedEvent = Omit<TimelineEvent, 'subjectId' | 'recordedAt'>;

/** One manipulation of an event, kept for ever: the event's history. */
export interface EventManipulation {
  readonly accountId: string;
  readonly id: string;
  readonly eventId: string;
  readonly action: string;
  readonly fromTime: Date;
  readonly toTime: Date;
  readonly appliedAt: Date;
  /** 1 for the first manipulation of the event, 2 for the next, ... */
  readonly revision: number;
}

export function isDisplaced(event: TimelineEvent): boolean {
  return event.time.getTime() !== event.originalTime.getTime();
}

/**
 * Displaced while a record (an item, an anchor, a travel) depends on when it first happened: what
 * makes a timeline unstable (docs/paradoxes.md, rule 2).
 */
export function isDisplacedDependency(event: TimelineEvent): boolean {
  return event.subjectId !== null && isDisplaced(event);
}

export function manipulate(
  event: TimelineEvent,
  input: { id: string; action: string; time: Date; now: Date },
): { event: TimelineEvent; manipulation: EventManipulation } {
  const revision = event.revision + 1;
  return {
    event: { ...event, time: input.time, revision },
    manipulation: {
      accountId: event.accountId,
      id: input.id,
      eventId: event.id,
      action: input.action,
      fromTime: event.time,
      toTime: input.time,
      appliedAt: input.now,
      revision,
    },
  };
}

export function recordEvent(input: {
  accountId: string;
  id: string;
  timelineId: string;
  kind: EventKind;
  time: Date;
  description: string;
  location: string;
  subjectId: string | null;
  now: Date;
}): TimelineEvent {
  return {
    accountId: input.accountId,
    id: input.id,
    timelineId: input.timelineId,
    kind: input.kind,
    time: input.time,
    originalTime: input.time,
    description: input.description,
    location: input.location,
    subjectId: input.subjectId,
    recordedAt: input.now,
    revision: 0,
  };
}
