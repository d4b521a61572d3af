/**
 * Timeline stability: one pure function that every family's paradox check calls, so the families
 * can never disagree about the same timeline and the same proposed changes.
 *
 * Rules (docs/paradoxes.md explains them with examples):
 * - no proposed changes: stable;
 * - `event_at_two_times`: two proposed changes put the same event (names compared ignoring case
 *   and surrounding or repeated white space) at two different times. An event happens once; the
 *   client must pick one time and check again.
 * Item changes only count once the item exists; the use case refuses unknown items before this runs.
 */

export type ProposedChange =
  | { readonly kind: 'event'; readonly event: string; readonly time: Date }
  | { readonly kind: 'item'; readonly itemId: string };

export interface ParadoxReason {
  readonly code: 'event_at_two_times';
  readonly message: string;
  readonly event: string;
  readonly times: readonly Date[];
}

export interface StabilityVerdict {
  readonly stable: boolean;
  readonly reasons: readonly ParadoxReason[];
}

export function normaliseEventName(name: string): string {
  return name.trim().replace(/\s+/g, ' ').toLowerCase();
}

export function assessStability(changes: readonly ProposedChange[]): StabilityVerdict {
  const reasons = eventsAtTwoTimes(changes);
  return { stable: reasons.length === 0, reasons };
}

function eventsAtTwoTimes(changes: readonly ProposedChange[]): ParadoxReason[] {
  const timesByEvent = new Map<string, { name: string; times: Map<number, Date> }>();
  for (const change of changes) {
    if (change.kind !== 'event') continue;
    const key = normaliseEventName(change.event);
    const entry = timesByEvent.get(key) ?? { name: change.event.trim(), times: new Map<number, Date>() };
    entry.times.set(change.time.getTime(), change.time);
    timesByEvent.set(key, entry);
  }
  const reasons: ParadoxReason[] = [];
  for (const { name, times } of timesByEvent.values()) {
    if (times.size < 2) continue;
    const sorted = [...times.values()].sort((a, b) => a.getTime() - b.getTime());
    reasons.push({
      code: 'event_at_two_times',
      message: `The event '${name}' is proposed at ${sorted.length} different times; an event can happen only once.`,
      event: name,
      times: sorted,
    });
  }
  return reasons;
}
