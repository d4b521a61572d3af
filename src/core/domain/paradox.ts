import { formatDateTime } from './date-time-format';
import type { Tally, TallyBounds } from './tally';
import { textKey } from './text-key';
import type { TimelineEvent } from './timeline-event';

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
 *
 * A timeline can hold any number of displaced events, so the function is given only the first of
 * them and their count (a Tally, bounded by CHECK_BOUNDS): the verdict needs no more, and the
 * answer lists no more than the first reasons.
 */

/**
 * What a paradox check reads and lists of a timeline's displaced or manipulated events: the first 10
 * (each reason a row read whole and a message; 100 made a check on a crowded timeline four times the
 * cost of one on an empty timeline: docs/performance.md), counted up to 100. A client fixing
 * conflicts needs the first of them and whether there are many; counting to 1,000 read four ranges
 * of 1,001 index entries for monitor-paradox, which cost a crowded timeline three times an empty one.
 */
export const CHECK_BOUNDS: TallyBounds = { listed: 10, counted: 100 };

/**
 * What a check reads of the recorded events under one proposed name: the first 10, counted up to 100.
 * A request proposes up to 100 names, so it reads at most about 10,000 index entries for them.
 */
export const NAMED_BOUNDS: TallyBounds = { listed: CHECK_BOUNDS.listed, counted: 100 };

/**
 * How many of a range's manipulated events, first by original time, a page of the range sifts for
 * those moved out of it (whose current time is elsewhere). Finding them all would need both times at
 * once, which no index orders; past this many a moved-out event further on is not listed, and the
 * range's `manipulated_count_capped` is then true (docs/paradoxes.md#bounded-work).
 */
export const MOVED_OUT_SIFTED = 1000;

export type ProposedChange =
  | { readonly kind: 'event'; readonly event: string; readonly time: Date }
  | { readonly kind: 'item'; readonly itemId: string };

export type ParadoxReason =
  | {
      readonly code: 'event_at_two_times';
      readonly message: string;
      readonly event: string;
      /** The proposed times, and the times of the recorded events listed in `eventIds`. */
      readonly times: readonly Date[];
      /** The first recorded events of that name (NAMED_BOUNDS), by time then id. */
      readonly eventIds: readonly string[];
      /** How many recorded events have that name; when `eventCountCapped`, at least this many. */
      readonly eventCount: number;
      readonly eventCountCapped: boolean;
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
  /** The first conflicts, at most CHECK_BOUNDS.listed: those of proposed times, then displaced events. */
  readonly reasons: readonly ParadoxReason[];
  /** How many conflicts there are; when `reasonCountCapped`, at least this many. */
  readonly reasonCount: number;
  readonly reasonCountCapped: boolean;
}

/** One name that proposed changes put on the timeline, and every time they propose for it. */
export interface ProposedName {
  /** As the first change wrote it, trimmed. */
  readonly name: string;
  /** Distinct, in the order proposed. */
  readonly times: readonly Date[];
}

/** What the timeline records under a proposed name, read in a bounded amount whatever it holds. */
export interface RecordedUnderName {
  /** The name as proposed (compared with `textKey`). */
  readonly name: string;
  /** The timeline's events of that name: the first by time then id, and their count (NAMED_BOUNDS). */
  readonly events: Tally<TimelineEvent>;
  /** Those of the proposed times at which an event of that name is recorded: exact, whatever the count. */
  readonly recordedAt: readonly Date[];
}

/** The names the event changes propose, each with its distinct times (names compared with `textKey`). */
export function proposedNames(changes: readonly ProposedChange[]): ProposedName[] {
  const proposed = new Map<string, { name: string; times: Map<number, Date> }>();
  for (const change of changes) {
    if (change.kind !== 'event') continue;
    const key = textKey(change.event);
    const entry = proposed.get(key) ?? { name: change.event.trim(), times: new Map<number, Date>() };
    entry.times.set(change.time.getTime(), change.time);
    proposed.set(key, entry);
  }
  return [...proposed.values()].map(({ name, times }) => ({ name, times: [...times.values()] }));
}

export interface StabilityInput {
  readonly changes: readonly ProposedChange[];
  /** What the timeline records under each name that the proposed changes name. */
  readonly named: readonly RecordedUnderName[];
  /** The displaced events in scope (a whole timeline, or a monitored time range), by original time. */
  readonly displaced: Tally<TimelineEvent>;
}

export function assessStability(input: StabilityInput): StabilityVerdict {
  const twoTimes = eventsAtTwoTimes(input);
  const reasons = [...twoTimes, ...input.displaced.first.map(displacement)].slice(0, CHECK_BOUNDS.listed);
  return {
    stable: twoTimes.length === 0 && input.displaced.count === 0,
    reasons,
    reasonCount: twoTimes.length + input.displaced.count,
    reasonCountCapped: input.displaced.capped,
  };
}

function eventsAtTwoTimes({ changes, named }: StabilityInput): ParadoxReason[] {
  const recordedUnder = new Map(named.map((recorded) => [textKey(recorded.name), recorded]));
  const reasons: ParadoxReason[] = [];
  for (const { name, times } of proposedNames(changes)) {
    const recorded = recordedUnder.get(textKey(name));
    const events = recorded?.events ?? { first: [], count: 0, capped: false };
    // The service records repeated names (two arrivals at one place): a proposal agrees with
    // history when it matches one of the recorded times.
    const recordedTimes = new Set(recorded?.recordedAt.map((time) => time.getTime()));
    const disagreesWithHistory = events.count > 0 && times.some((time) => !recordedTimes.has(time.getTime()));
    if (times.length < 2 && !disagreesWithHistory) continue;
    const involved = new Map(times.map((time) => [time.getTime(), time]));
    for (const event of events.first) involved.set(event.time.getTime(), event.time);
    reasons.push({
      code: 'event_at_two_times',
      message: disagreesWithHistory
        ? `The event '${name}' is proposed at a time it is not recorded at: the proposed changes disagree with ` +
          'the recorded event. An event happens once; propose the recorded time, or manipulate the event first.'
        : `The event '${name}' is proposed at ${times.length} different times; an event happens once.`,
      event: name,
      times: [...involved.values()].sort((a, b) => a.getTime() - b.getTime()),
      eventIds: events.first.map((event) => event.id),
      eventCount: events.count,
      eventCountCapped: events.capped,
    });
  }
  return reasons;
}

/** The conflict of a displaced event: something depends on the time it first happened. */
function displacement(event: TimelineEvent): ParadoxReason {
  return {
    code: 'event_displaced',
    message:
      `The event '${event.description}' was moved by manipulation from ${formatDateTime(event.originalTime)} ` +
      `to ${formatDateTime(event.time)}, but ${event.subjectId} depends on it happening when it first did. ` +
      'Manipulate it back to its original time to restore the timeline.',
    event: event.description,
    eventId: event.id,
    originalTime: event.originalTime,
    time: event.time,
    dependentId: event.subjectId,
  };
}
