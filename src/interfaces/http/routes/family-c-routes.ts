import type { Container } from 'inversify';
import { TimeRange } from '../../../core/domain/time-range';
import { ListEvents } from '../../../core/use-cases/events/list-events';
import { ManipulateEvent } from '../../../core/use-cases/events/manipulate-event';
import { CheckParadox } from '../../../core/use-cases/paradoxes/check-paradox';
import { MonitorParadox } from '../../../core/use-cases/paradoxes/monitor-paradox';
import { TravelToMoment } from '../../../core/use-cases/travels/travel-to-moment';
import { CheckTimelineDto, ManipulateEventDto, MonitorParadoxDto } from '../dtos/family-c.dto';
import { EventScanDto, TravelToMomentDto } from '../dtos/shared.dto';
import { presentEvent, presentManipulation, presentVerdict } from '../presenters/resources';
import {
  CheckTimelineResponse,
  EventScanResponse,
  ManipulateEventResponse,
  MonitorParadoxResponse,
} from '../dtos/responses/family-c.response';
import { ArrivalResponse } from '../dtos/responses/resources.response';
import { eventCursorOf, nextEventCursor } from '../cursor';
import { defineRoute, type Route } from '../route';
import { toInstant } from '../validation/to-instant';
import { scanEvents } from './event-scan';
import { travelToMomentHandler } from './travel-to-moment';

const family = 'C';

/** Family C: scenario operations under /api/v1, answering in the same vocabulary as A and B. */
export function familyCRoutes(container: Container): Route[] {
  return [scenarioTravelRoute, scanEventsRoute, manipulateEventRoute, monitorParadoxRoute, checkTimelineRoute].map(
    (route) => route(container),
  );
}

/** POST /api/v1/travel: Travel to a moment and place on the current timeline. */
function scenarioTravelRoute(container: Container): Route {
  const travelToMoment = container.get(TravelToMoment);
  return defineRoute(
    {
      method: 'post',
      path: '/api/v1/travel',
      operationId: 'scenarioTravel',
      scope: 'clock:write',
      family,
      summary: 'Travel to a moment and place on the current timeline.',
      body: TravelToMomentDto,
      docs: {
        description:
          'Travels to a moment and place on the timeline the traveller is on; ' +
          'the same operation as `POST /v1/travel`, with the same body and answer, but for its permission: ' +
          '`clock:write`, where `POST /v1/travel` needs `travels:write`.',
        status: 200,
        response: ArrivalResponse,
        errors: ['timeline_window_expired'],
        example: { destination_time: '1969-07-20T20:17:40Z', location: 'Sea of Tranquility' },
      },
    },
    travelToMomentHandler(travelToMoment),
  );
}

/** POST /api/v1/scan-events: Scan the events at a location within a time range. */
function scanEventsRoute(container: Container): Route {
  const listEvents = container.get(ListEvents);
  return defineRoute(
    {
      method: 'post',
      path: '/api/v1/scan-events',
      operationId: 'scanEvents',
      scope: 'events:read',
      family,
      summary: 'Scan the events at a location within a time range.',
      body: EventScanDto,
      docs: {
        description:
          'The same listing as `GET /v1/monitor-events`, with the parameters in the body and no `status` ' +
          'sentence: the events at a place within a time range, oldest first, a page at a time.',
        status: 200,
        response: EventScanResponse,
        errors: ['timeline_not_found'],
        example: {
          location: 'Sea of Tranquility',
          time_range: '1969-07-20T00:00:00Z/1969-07-21T00:00:00Z',
          limit: 100,
        },
      },
    },
    async ({ body }, { accountId }) => ({ status: 200, body: await scanEvents(listEvents, accountId, body) }),
  );
}

/** POST /api/v1/manipulate-event: Apply an action to an event, moving it to a time; its history is kept. */
function manipulateEventRoute(container: Container): Route {
  const manipulateEvent = container.get(ManipulateEvent);
  return defineRoute(
    {
      method: 'post',
      path: '/api/v1/manipulate-event',
      operationId: 'manipulateEvent',
      scope: 'events:write',
      family,
      summary: 'Apply an action to an event, moving it to a time; its history is kept.',
      body: ManipulateEventDto,
      docs: {
        description:
          'Applies a free-text `action` to an event, moving it to `time`. The event keeps its `original_time`, ' +
          'every manipulation is kept (`history` lists the latest 100, `history_count` counts them all), and ' +
          'the manipulation is itself recorded as an event. ' +
          'Moving an event something depends on makes its timeline unstable until it is moved back.',
        status: 200,
        response: ManipulateEventResponse,
        errors: ['event_not_found'],
        example: {
          event_id: 'evt_5d7e2c1b0a9f48e7b6c5d4e3f2a1b0c9',
          action: 'Delay the landing',
          time: '1969-07-20T21:17:40Z',
        },
      },
    },
    async ({ body }, { accountId }) => {
      const result = await manipulateEvent.execute({
        accountId,
        eventId: body.event_id,
        action: body.action,
        time: toInstant(body.time),
      });
      return {
        status: 200,
        body: {
          status: `Event ${result.event.id} manipulated.`,
          event: presentEvent(result.event),
          manipulation: presentManipulation(result.manipulation),
          history: result.history.map(presentManipulation),
          history_count: result.event.revision,
        },
      };
    },
  );
}

/** GET /api/v1/monitor-paradox: a range of a timeline, a page at a time, with its paradox verdict. */
function monitorParadoxRoute(container: Container): Route {
  const monitorParadox = container.get(MonitorParadox);
  return defineRoute(
    {
      method: 'get',
      path: '/api/v1/monitor-paradox',
      operationId: 'monitorParadox',
      scope: 'paradoxes:read',
      family,
      summary:
        'The events of a timeline within a time range, a page at a time, the manipulated ones marked, ' +
        'and the verdict on them.',
      query: MonitorParadoxDto,
      docs: {
        description:
          'The events of a timeline whose current or original time falls within the time range, ' +
          'at every place, a page at a time, each marked `manipulated`, with the verdict on the whole range. ' +
          '`manipulated_count` and `manipulated_event_ids` cover the whole range, the same on every page.',
        status: 200,
        response: MonitorParadoxResponse,
        errors: ['timeline_not_found'],
        example: {
          timeline_id: 'tml_7c9e6679742540de944be07fc1f90ae7',
          time_range: '1969-07-20T00:00:00Z/1969-07-21T00:00:00Z',
        },
      },
    },
    async ({ query }, { accountId }) => {
      const report = await monitorParadox.execute({
        accountId,
        timelineId: query.timeline_id,
        range: TimeRange.parse(query.time_range),
        limit: query.limit,
        after: eventCursorOf(query.cursor),
      });
      return {
        status: 200,
        body: {
          ...presentVerdict(query.timeline_id, report),
          time_range: query.time_range,
          manipulated_count: report.manipulated.count,
          manipulated_count_capped: report.manipulated.capped,
          manipulated_event_ids: report.manipulated.first,
          events_monitored: report.events.map(presentEvent),
          next_cursor: nextEventCursor(report.next),
        },
      };
    },
  );
}

/** GET /api/v1/check-timeline: Check a timeline around one significant event. */
function checkTimelineRoute(container: Container): Route {
  const checkParadox = container.get(CheckParadox);
  return defineRoute(
    {
      method: 'get',
      path: '/api/v1/check-timeline',
      operationId: 'checkTimeline',
      scope: 'paradoxes:read',
      family,
      summary: 'Check a timeline around one significant event.',
      query: CheckTimelineDto,
      docs: {
        description:
          'Checks a timeline around one significant event, given by its id or its description, which must be ' +
          'recorded on that timeline (`unknown_event` otherwise).',
        status: 200,
        response: CheckTimelineResponse,
        errors: ['timeline_not_found', 'unknown_event'],
        example: {
          timeline_id: 'tml_7c9e6679742540de944be07fc1f90ae7',
          significant_event: 'Traveller arrives at Sea of Tranquility',
        },
      },
    },
    async ({ query }, { accountId }) => {
      const report = await checkParadox.execute({
        accountId,
        timelineId: query.timeline_id,
        significantEvent: query.significant_event,
      });
      return {
        status: 200,
        body: {
          ...presentVerdict(query.timeline_id, report),
          significant_event: report.significantEvent && presentEvent(report.significantEvent),
        },
      };
    },
  );
}
