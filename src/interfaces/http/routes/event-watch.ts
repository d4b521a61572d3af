import { TimeRange } from '../../../core/domain/time-range';
import {
  type EventWatch,
  UnreachedStreamPosition,
  type WatchEvents,
} from '../../../core/use-cases/events/watch-events';
import type { EventScanDto } from '../dtos/shared.dto';
import type { EventStreamSource, SseMessage } from '../event-stream/event-stream-source';
import { decodeStreamPosition, encodeStreamPosition, streamScope } from '../event-stream/stream-position';
import { presentEvent } from '../presenters/resources';
import { Problem } from '../problem';

/**
 * GET /v1/monitor-events as an event stream: the same parameters but the paging ones, resumed
 * from `Last-Event-ID` (docs/decisions.md, "Event streams").
 */
export async function watchEventsAt(
  watchEvents: WatchEvents,
  accountId: string,
  input: EventScanDto,
  lastEventId: string | undefined,
): Promise<EventStreamSource> {
  const paging = (['cursor', 'limit'] as const).filter((field) => input[field] !== undefined);
  if (paging.length > 0) {
    throw Problem.validation(
      paging.map((field) => ({
        field,
        message: 'does not apply to an event stream, which resumes with Last-Event-ID',
      })),
    );
  }
  const range = TimeRange.parse(input.time_range);
  const scope = streamScope(accountId, input.location, range);
  const resumed = lastEventId === undefined ? null : decodeStreamPosition(lastEventId);
  const from = resumed?.position ?? null;
  if (from && input.timeline_id !== undefined && from.timelineId !== input.timeline_id) {
    throw Problem.validation([
      { field: 'Last-Event-ID', message: `is a position on timeline '${from.timelineId}', not on the one asked for` },
    ]);
  }
  if (resumed && resumed.scope !== null && resumed.scope !== scope) {
    throw Problem.validation([
      { field: 'Last-Event-ID', message: 'is a position of a stream of another location or time range' },
    ]);
  }
  const watch = await watchEvents
    .open({ accountId, place: input.location, range, timelineId: input.timeline_id, from })
    .catch((error: unknown) => {
      if (!(error instanceof UnreachedStreamPosition)) throw error;
      throw Problem.validation([{ field: 'Last-Event-ID', message: 'is a position this account has not reached' }]);
    });
  return { [Symbol.asyncIterator]: () => messagesOf(watch, scope, lastEventId), close: () => watch.close() };
}

/**
 * Each message's `data` is the event as the listing presents it; `caught-up` names the timeline.
 * A message carries an `id` only where it moves the stream's position on: a `caught-up` with nothing
 * new since the last message (or since `Last-Event-ID`) has none, so that no two ids are the same,
 * and the client's last id stays the position to resume from.
 */
async function* messagesOf(
  watch: EventWatch,
  scope: string,
  resumedFrom: string | undefined,
): AsyncGenerator<SseMessage> {
  let lastId = resumedFrom;
  for await (const watched of watch) {
    const data = watched.kind === 'caught-up' ? { timeline_id: watch.timelineId } : presentEvent(watched.event);
    const id = encodeStreamPosition(watched.position, scope);
    const moved = id !== lastId;
    lastId = id;
    yield {
      ...(moved ? { id } : {}),
      event: watched.kind,
      data: JSON.stringify(data),
      origin: watched.kind === 'caught-up' ? null : watched.origin,
    };
  }
}
