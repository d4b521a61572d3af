import { TimeRange } from '../../../core/domain/time-range';
import type { ListEvents } from '../../../core/use-cases/events/list-events';
import { eventCursorOf, nextEventCursor } from '../cursor';
import type { EventScanDto } from '../dtos/shared.dto';
import { presentEvent } from '../presenters/resources';

/** Events at a place in a time range, paged: what A's monitor-events and C's scan-events both answer. */
export async function scanEvents(listEvents: ListEvents, accountId: string, input: EventScanDto) {
  const page = await listEvents.execute({
    accountId,
    place: input.location,
    range: TimeRange.parse(input.time_range),
    timelineId: input.timeline_id,
    limit: input.limit,
    after: eventCursorOf(input.cursor),
  });
  return {
    location: input.location,
    time_range: input.time_range,
    timeline_id: page.timelineId,
    events: page.events.map(presentEvent),
    next_cursor: nextEventCursor(page.next),
  };
}
