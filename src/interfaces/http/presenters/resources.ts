import type { Account } from '../../../core/domain/account';
import type { Anchor } from '../../../core/domain/anchor';
import { formatDateTime } from '../../../core/domain/date-time-format';
import type { Item } from '../../../core/domain/item';
import type { ParadoxReason, StabilityVerdict } from '../../../core/domain/paradox';
import type { Timeline } from '../../../core/domain/timeline';
import type { EventManipulation, ListedEvent } from '../../../core/domain/timeline-event';
import type { Travel } from '../../../core/domain/travel';

/** The JSON shapes of the resources, with the spec's field names; every family answers in these. */

export function presentAccount(account: Account, apiKey: string) {
  return { id: account.id, email: account.email, api_key: apiKey, created_at: formatDateTime(account.createdAt) };
}

export function presentAnchor(anchor: Anchor) {
  return {
    id: anchor.id,
    timestamp: formatDateTime(anchor.timestamp),
    description: anchor.description,
    timeline_id: anchor.timelineId,
    location: anchor.location,
    created_at: formatDateTime(anchor.createdAt),
  };
}

/** `timeline` must already be settled at the time of the answer (see Timeline.settledAt). */
export function presentTimeline(timeline: Timeline) {
  return {
    id: timeline.id,
    name: timeline.name,
    destination_time: timeline.destinationTime && formatDateTime(timeline.destinationTime),
    created_at: formatDateTime(timeline.createdAt),
    status: timeline.status,
    window: timeline.windowMinutes === null ? null : `${timeline.windowMinutes} minutes`,
    window_closes_at: timeline.deadline && formatDateTime(timeline.deadline),
  };
}

export function presentItem(item: Item) {
  return {
    id: item.id,
    timeline_id: item.timelineId,
    item_description: item.description,
    location: item.location,
    found_at: formatDateTime(item.foundAt),
    registered_at: formatDateTime(item.registeredAt),
    carried_home_by: item.carriedHomeBy,
  };
}

export function presentTravel(travel: Travel, location: string) {
  return {
    id: travel.id,
    destination: travel.destination,
    timeline_id: travel.toTimelineId,
    current_time: formatDateTime(travel.arrivalTime),
    location,
    items_transported: travel.itemsTransported,
  };
}

/** A move to a moment and place (Families A and C), with the human-readable status Family A promises. */
export function presentArrival(travel: Travel, location: string) {
  const currentTime = formatDateTime(travel.arrivalTime);
  return {
    status: `Arrived at ${location} at ${currentTime}.`,
    current_time: currentTime,
    location,
    timeline_id: travel.toTimelineId,
    travel_id: travel.id,
  };
}

export function presentReason(reason: ParadoxReason) {
  switch (reason.code) {
    case 'event_at_two_times':
      return {
        code: reason.code,
        message: reason.message,
        event: reason.event,
        times: reason.times.map(formatDateTime),
        event_ids: reason.eventIds,
        event_count: reason.eventCount,
        event_count_capped: reason.eventCountCapped,
      };
    case 'event_displaced':
      return {
        code: reason.code,
        message: reason.message,
        event: reason.event,
        event_id: reason.eventId,
        original_time: formatDateTime(reason.originalTime),
        time: formatDateTime(reason.time),
        dependent_id: reason.dependentId,
      };
  }
}

/** The verdict in both vocabularies the spec uses: B's `is_stable`, A's `timeline_stability`. */
export function presentVerdict(timelineId: string, verdict: StabilityVerdict) {
  return {
    timeline_id: timelineId,
    is_stable: verdict.stable,
    timeline_stability: verdict.stable ? 'Stable' : 'Unstable',
    reason_count: verdict.reasonCount,
    reason_count_capped: verdict.reasonCountCapped,
    reasons: verdict.reasons.map(presentReason),
  };
}

export function presentEvent(event: ListedEvent) {
  return {
    event_id: event.id,
    time: formatDateTime(event.time),
    description: event.description,
    location: event.location,
    timeline_id: event.timelineId,
    kind: event.kind,
    original_time: formatDateTime(event.originalTime),
    manipulated: event.revision > 0,
  };
}

export function presentManipulation(manipulation: EventManipulation) {
  return {
    id: manipulation.id,
    event_id: manipulation.eventId,
    action: manipulation.action,
    from_time: formatDateTime(manipulation.fromTime),
    to_time: formatDateTime(manipulation.toTime),
    applied_at: formatDateTime(manipulation.appliedAt),
    revision: manipulation.revision,
  };
}
