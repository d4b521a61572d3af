import type { Account } from '../../../core/domain/account';
import type { Anchor } from '../../../core/domain/anchor';
import { formatDateTime } from '../../../core/domain/date-time';
import type { Item } from '../../../core/domain/item';
import type { ParadoxReason, StabilityVerdict } from '../../../core/domain/paradox';
import type { Timeline } from '../../../core/domain/timeline';
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

export function presentReason(reason: ParadoxReason) {
  return {
    code: reason.code,
    message: reason.message,
    event: reason.event,
    times: reason.times.map(formatDateTime),
  };
}

export function presentVerdict(timelineId: string, verdict: StabilityVerdict) {
  return { timeline_id: timelineId, is_stable: verdict.stable, reasons: verdict.reasons.map(presentReason) };
}
