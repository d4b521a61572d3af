import type { Container } from 'inversify';
import { formatDateTime } from '../../../core/domain/date-time-format';
import { Duration } from '../../../core/domain/duration';
import { CreateAnchor } from '../../../core/use-cases/anchors/create-anchor';
import { PauseTime } from '../../../core/use-cases/clock/pause-time';
import { ResumeTime } from '../../../core/use-cases/clock/resume-time';
import { ShiftTime } from '../../../core/use-cases/clock/shift-time';
import { RegisterItem } from '../../../core/use-cases/items/register-item';
import { ListEvents } from '../../../core/use-cases/events/list-events';
import { WatchEvents } from '../../../core/use-cases/events/watch-events';
import { CheckParadox } from '../../../core/use-cases/paradoxes/check-paradox';
import { Travel } from '../../../core/use-cases/travels/travel';
import { TravelToMoment } from '../../../core/use-cases/travels/travel-to-moment';
import { CreateAnchorDto } from '../dtos/family-b.dto';
import { DurationDto, RetrieveItemDto, ReturnDto } from '../dtos/family-a.dto';
import { EventScanDto, TimelineIdDto, TravelToMomentDto } from '../dtos/shared.dto';
import { presentItem, presentVerdict } from '../presenters/resources';
import {
  CheckParadoxResponse,
  MonitorEventsResponse,
  PauseTimeResponse,
  ResumeTimeResponse,
  RetrieveItemResponse,
  ReturnResponse,
  SetAnchorResponse,
  ShiftTimeResponse,
} from '../dtos/responses/family-a.response';
import { ArrivalResponse } from '../dtos/responses/resources.response';
import { defineRoute, type Route } from '../route';
import { toInstant } from '../validation/to-instant';
import { scanEvents } from './event-scan';
import { watchEventsAt } from './event-watch';
import { travelToMomentHandler } from './travel-to-moment';

const family = 'A';

/**
 * Family A: simple verbs. Each answers 200 with a human-readable `status` and the spec's fields,
 * through the same use cases as Families B and C.
 */
export function familyARoutes(container: Container): Route[] {
  return [
    travelToMomentRoute,
    setAnchorRoute,
    pauseTimeRoute,
    resumeTimeRoute,
    fastForwardRoute,
    rewindRoute,
    monitorEventsRoute,
    retrieveItemRoute,
    returnToAnchorRoute,
    checkParadoxRoute,
  ].map((route) => route(container));
}

/** POST /v1/travel: Travel to a moment and place on the current timeline. */
function travelToMomentRoute(container: Container): Route {
  const travelToMoment = container.get(TravelToMoment);
  return defineRoute(
    {
      method: 'post',
      path: '/v1/travel',
      operationId: 'travelToMoment',
      scope: 'travels:write',
      family,
      summary: 'Travel to a moment and place on the current timeline.',
      body: TravelToMomentDto,
      docs: {
        description:
          'Travels to a moment and place on the timeline the traveller is on: `primary` at home, ' +
          "or the journey's timeline while away. Sets the account's clock to `destination_time` and records " +
          'an `arrival` event there. Away on a timeline whose travel window has closed, the answer is ' +
          '`timeline_window_expired`: go home first.',
        status: 200,
        response: ArrivalResponse,
        errors: ['timeline_window_expired'],
        example: { destination_time: '1969-07-20T20:17:40Z', location: 'Sea of Tranquility' },
      },
    },
    travelToMomentHandler(travelToMoment),
  );
}

/** POST /v1/set-anchor: Set a temporal anchor. */
function setAnchorRoute(container: Container): Route {
  const createAnchor = container.get(CreateAnchor);
  return defineRoute(
    {
      method: 'post',
      path: '/v1/set-anchor',
      operationId: 'setAnchor',
      scope: 'anchors:write',
      family,
      summary: 'Set a temporal anchor.',
      body: CreateAnchorDto,
      docs: {
        description:
          'Sets an anchor, a moment to return to with `POST /v1/return`, on the timeline and at the location ' +
          "the traveller is at. Without `timestamp`, the anchor is the account clock's current time. " +
          'The same anchor as `POST /v1/anchors` makes, answered with a status sentence.',
        status: 200,
        response: SetAnchorResponse,
        errors: [],
        example: { description: 'Home' },
      },
    },
    async ({ body }, { accountId }) => {
      const anchor = await createAnchor.execute({
        accountId,
        timestamp: body.timestamp === undefined ? undefined : toInstant(body.timestamp),
        description: body.description,
      });
      return {
        status: 200,
        body: {
          anchor_id: anchor.id,
          status: `Anchor set at ${formatDateTime(anchor.timestamp)}.`,
          timestamp: formatDateTime(anchor.timestamp),
          timeline_id: anchor.timelineId,
        },
      };
    },
  );
}

/** POST /v1/pause-time: Pause the flow of time. */
function pauseTimeRoute(container: Container): Route {
  const pauseTime = container.get(PauseTime);
  return defineRoute(
    {
      method: 'post',
      path: '/v1/pause-time',
      operationId: 'pauseTime',
      scope: 'clock:write',
      family,
      summary: 'Pause the flow of time.',
      docs: {
        description:
          "Pauses the account's clock at `paused_at` until it is resumed. Pausing a paused clock " +
          'answers `clock_already_paused`.',
        status: 200,
        response: PauseTimeResponse,
        errors: ['clock_already_paused'],
      },
    },
    async (_request, { accountId }) => {
      const { pausedAt } = await pauseTime.execute({ accountId });
      return { status: 200, body: { status: 'Time paused.', paused_at: formatDateTime(pausedAt) } };
    },
  );
}

/** POST /v1/resume-time: Resume the flow of time from the paused moment. */
function resumeTimeRoute(container: Container): Route {
  const resumeTime = container.get(ResumeTime);
  return defineRoute(
    {
      method: 'post',
      path: '/v1/resume-time',
      operationId: 'resumeTime',
      scope: 'clock:write',
      family,
      summary: 'Resume the flow of time from the paused moment.',
      docs: {
        description:
          "Resumes the account's clock from the exact moment it was paused. Resuming a running clock " +
          'answers `clock_already_running`.',
        status: 200,
        response: ResumeTimeResponse,
        errors: ['clock_already_running'],
      },
    },
    async (_request, { accountId }) => {
      const { currentTime } = await resumeTime.execute({ accountId });
      return { status: 200, body: { status: 'Time resumed.', current_time: formatDateTime(currentTime) } };
    },
  );
}

/** POST /v1/fast-forward: Move time forward by a duration. */
function fastForwardRoute(container: Container): Route {
  const shiftTime = container.get(ShiftTime);
  return defineRoute(
    {
      method: 'post',
      path: '/v1/fast-forward',
      operationId: 'fastForward',
      scope: 'clock:write',
      family,
      summary: 'Move time forward by a duration.',
      body: DurationDto,
      docs: {
        description:
          "Moves the account's clock forward by `duration` (`<n>m`, `<n>h` or `<n>d`), running or paused; " +
          'a paused clock stays paused. A result outside years 0001 to 9999 answers `time_out_of_range` ' +
          'and changes nothing.',
        status: 200,
        response: ShiftTimeResponse,
        errors: ['time_out_of_range'],
        example: { duration: '2h' },
      },
    },
    async ({ body }, { accountId }) => {
      const { newTime } = await shiftTime.execute({
        accountId,
        duration: Duration.parse(body.duration),
        direction: 'forward',
      });
      return {
        status: 200,
        body: { status: `Time fast-forwarded by ${body.duration}.`, new_time: formatDateTime(newTime) },
      };
    },
  );
}

/** POST /v1/rewind: Move time back by a duration. */
function rewindRoute(container: Container): Route {
  const shiftTime = container.get(ShiftTime);
  return defineRoute(
    {
      method: 'post',
      path: '/v1/rewind',
      operationId: 'rewind',
      scope: 'clock:write',
      family,
      summary: 'Move time back by a duration.',
      body: DurationDto,
      docs: {
        description: "Moves the account's clock back by `duration`, with the same rules as `POST /v1/fast-forward`.",
        status: 200,
        response: ShiftTimeResponse,
        errors: ['time_out_of_range'],
        example: { duration: '90m' },
      },
    },
    async ({ body }, { accountId }) => {
      const { newTime } = await shiftTime.execute({
        accountId,
        duration: Duration.parse(body.duration),
        direction: 'backward',
      });
      return {
        status: 200,
        body: { status: `Time rewound by ${body.duration}.`, new_time: formatDateTime(newTime) },
      };
    },
  );
}

/** GET /v1/monitor-events: Events at a location within a time range, oldest first. */
function monitorEventsRoute(container: Container): Route {
  const watchEvents = container.get(WatchEvents);
  const listEvents = container.get(ListEvents);
  return defineRoute(
    {
      method: 'get',
      path: '/v1/monitor-events',
      operationId: 'monitorEvents',
      scope: 'events:read',
      family,
      summary: 'Events at a location within a time range, oldest first.',
      query: EventScanDto,
      docs: {
        description:
          'The events at a place (or named after it) within a time range, oldest first, a page at a time: ' +
          'pass `next_cursor` back as `cursor`. Travels, anchors, items and manipulations record events. ' +
          'Without `timeline_id`, the timeline the traveller is on.',
        status: 200,
        response: MonitorEventsResponse,
        errors: ['timeline_not_found', 'too_many_streams', 'stream_capacity_reached'],
        example: { location: 'Sea of Tranquility', time_range: '1969-07-20T00:00:00Z/1969-07-21T00:00:00Z' },
      },
    },
    async ({ query }, { accountId }) => {
      const page = await scanEvents(listEvents, accountId, query);
      const more = page.next_cursor ? ' on this page; more follow (next_cursor)' : '';
      return { status: 200, body: { status: `${page.events.length} event(s) found${more}.`, ...page } };
    },
    ({ query }, { accountId }, lastEventId) => watchEventsAt(watchEvents, accountId, query, lastEventId),
  );
}

/** GET /v1/retrieve-item: Find an item at a place and time, registering it so it can be carried home. */
function retrieveItemRoute(container: Container): Route {
  const registerItem = container.get(RegisterItem);
  return defineRoute(
    {
      method: 'get',
      path: '/v1/retrieve-item',
      operationId: 'retrieveItem',
      scope: 'items:write',
      family,
      summary: 'Find an item at a place and time, registering it so it can be carried home.',
      query: RetrieveItemDto,
      changesState: true,
      docs: {
        description:
          "Finds an item at a place and time on the traveller's timeline and registers it, so that a travel home " +
          'may carry it. Asking again with the same parameters answers the same item (`Item already retrieved.`) ' +
          'instead of registering a copy.',
        status: 200,
        response: RetrieveItemResponse,
        errors: [],
        example: { item_description: 'Moon rock', location: 'Sea of Tranquility', time: '1969-07-20T20:30:00Z' },
      },
    },
    async ({ query }, { accountId }) => {
      const { item, registered } = await registerItem.execute({
        accountId,
        description: query.item_description,
        location: query.location,
        foundAt: toInstant(query.time),
        reuseSame: true,
      });
      return {
        status: 200,
        body: {
          item_id: item.id,
          status: registered ? 'Item retrieved.' : 'Item already retrieved.',
          item_details: { description: item.description, retrieved_at: formatDateTime(item.foundAt) },
          item: presentItem(item),
        },
      };
    },
  );
}

/** POST /v1/return: Return to an anchor. */
function returnToAnchorRoute(container: Container): Route {
  const travel = container.get(Travel);
  return defineRoute(
    {
      method: 'post',
      path: '/v1/return',
      operationId: 'returnToAnchor',
      scope: 'travels:write',
      family,
      summary: 'Return to an anchor.',
      body: ReturnDto,
      docs: {
        description: 'Returns to an anchor: the clock is set to its timestamp, on its timeline, at its location.',
        status: 200,
        response: ReturnResponse,
        errors: ['anchor_not_found', 'journey_in_progress', 'timeline_window_expired', 'timeline_closed'],
        example: { anchor_id: 'anc_16fd2706895846d3ab5e0a6d1bc4e0a1' },
      },
    },
    async ({ body }, { accountId }) => {
      const { travel: record, traveller } = await travel.execute({
        accountId,
        destination: body.anchor_id,
        only: 'anchor',
      });
      return {
        status: 200,
        body: {
          status: `Returned to anchor ${body.anchor_id}.`,
          current_time: formatDateTime(record.arrivalTime),
          location: traveller.location,
          timeline_id: record.toTimelineId,
          travel_id: record.id,
        },
      };
    },
  );
}

/** GET /v1/check-paradox: Check a timeline for paradoxes. */
function checkParadoxRoute(container: Container): Route {
  const checkParadox = container.get(CheckParadox);
  return defineRoute(
    {
      method: 'get',
      path: '/v1/check-paradox',
      operationId: 'checkParadox',
      scope: 'paradoxes:read',
      family,
      summary: 'Check a timeline for paradoxes.',
      query: TimelineIdDto,
      docs: {
        description:
          'Checks a timeline as it stands and answers its verdict: `timeline_stability` and `is_stable`, ' +
          'with one reason per conflict (the first 10; `reason_count` counts them). Stores nothing.',
        status: 200,
        response: CheckParadoxResponse,
        errors: ['timeline_not_found'],
        example: { timeline_id: 'tml_7c9e6679742540de944be07fc1f90ae7' },
      },
    },
    async ({ query }, { accountId }) => {
      const report = await checkParadox.execute({ accountId, timelineId: query.timeline_id });
      const conflicts = `${report.reasonCountCapped ? 'at least ' : ''}${report.reasonCount}`;
      const status = report.stable ? 'Timeline is stable.' : `Timeline is unstable: ${conflicts} conflict(s) found.`;
      return { status: 200, body: { status, ...presentVerdict(query.timeline_id, report) } };
    },
  );
}
