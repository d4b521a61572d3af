import { formatDateTime } from './date-time-format';
import { textKey } from './text-key';
import { isDisplaced, type TimelineEvent } from './timeline-event';

/**
 * Timeline stability: one pure, deterministic function that every family's paradox check calls,
 * so the families never disagree about the same timeline. docs/paradoxes.md explains the rules
 * with examples:
 * - `event_at_two_times`: one event (names compared with `textKey`) would happen at two different
 *   times: two proposed changes disagree, or a proposed change disagrees with the recorded event.
 * - `event_displaced`: a manipulation moved a recorded event that another record depends on (the
 *   item retrieved there, the anchor set there, the travel that arrived there) away from the time
 *   it first happened.
 * No proposed changes and no displaced events: stable. Item changes must name existing items (the
 * use cases refuse unknown ones before this runs) and do not by themselves destabilise.
 */

export type ProposedChange =
  | { readonly kind: 'event'; readonly event: string; readonly time: Date }
  | { readonly kind: 'item'; readonly itemId: string };

export type ParadoxReason =
  | {
      readonly code: 'event_at_two_times';
      readonly message: string;
      readonly event: string;
      readonly times: readonly Date[];
      /** Recorded events of that name involved in the conflict. */
      readonly eventIds: readonly string[];
    }
  | {
      readonly code: 'event_displaced';
      readonly message: string;
      readonly event: string;
      readonly eventId: string;
      readonly originalTime: Date;
      readonly time: Date;
      /** The item, anchor or travel that depends on the event. */
      readonly dependentId: string | null;
    };

export interface StabilityVerdict {
  readonly stable: boolean;
  readonly reasons: readonly ParadoxReason[];
}

export interface StabilityInput {
  readonly changes: readonly ProposedChange[];
  /** The recorded events in scope (a whole timeline, or those within a monitored time range). */
  readonly events: readonly TimelineEvent[];
}

export function assessStability(input: StabilityInput): StabilityVerdict {
  const reasons = [...eventsAtTwoTimes(input), ...displacedEvents(input.events)];
  return { stable: reasons.length === 0, reasons };
}

function eventsAtTwoTimes({ changes, events }: StabilityInput): ParadoxReason[] {
  const proposed = new Map<string, { name: string; times: Map<number, Date> }>();
  for (const change of changes) {
    if (change.kind !== 'event') continue;
    const key = textKey(change.event);
    const entry = proposed.get(key) ?? { name: change.event.trim(), times: new Map<number, Date>() };
    entry.times.set(change.time.getTime(), change.time);
    proposed.set(key, entry);
  }
  const reasons: ParadoxReason[] = [];
  for (const [key, { name, times }] of proposed) {
    // The service records repeated names (two arrivals at one place): a proposal agrees with
    // history when it matches one of the recorded times.
    const recorded = events.filter((event) => textKey(event.description) === key);
    const recordedTimes = new Set(recorded.map((event) => event.time.getTime()));
    const disagreesWithHistory = recorded.length > 0 && [...times.keys()].some((time) => !recordedTimes.has(time));
    if (times.size < 2 && !disagreesWithHistory) continue;
    for (const event of recorded) times.set(event.time.getTime(), event.time);
    const sorted = [...times.values()].sort((a, b) => a.getTime() - b.getTime());
    reasons.push({
      code: 'event_at_two_times',
      message: disagreesWithHistory
        ? `The event '${name}' would happen at ${sorted.length} different times: the proposed changes disagree with ` +
          'the recorded event. An event happens once; propose the recorded time, or manipulate the event first.'
        : `The event '${name}' is proposed at ${sorted.length} different times; an event happens once.`,
      event: name,
      times: sorted,
      eventIds: recorded.map((event) => event.id).sort(),
    });
  }
  return reasons;
}

function displacedEvents(events: readonly TimelineEvent[]): ParadoxReason[] {
  return events
    .filter((event) => event.subjectId !== null && isDisplaced(event))
    .sort((a, b) => a.originalTime.getTime() - b.originalTime.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((event) => ({
      code: 'event_displaced' as const,
      message:
        `The event '${event.description}' was moved by manipulation from ${formatDateTime(event.originalTime)} ` +
        `to ${formatDateTime(event.time)}, but ${event.subjectId} depends on it happening when it first did. ` +
        'Manipulate it back to its original time to restore the timeline.',
      event: event.description,
      eventId: event.id,
      originalTime: event.originalTime,
      time: event.time,
      dependentId: event.subjectId,
    }));
}
