import type { Container } from 'inversify';
import type { ProposedChange } from '../../../core/domain/paradox';
import type { TimelineCursor } from '../../../core/ports/repositories';
import { CreateAnchor } from '../../../core/use-cases/anchors/create-anchor';
import { RegisterItem } from '../../../core/use-cases/items/register-item';
import { CheckParadox } from '../../../core/use-cases/paradoxes/check-paradox';
import { CreateTimeline } from '../../../core/use-cases/timelines/create-timeline';
import { GetTimeline } from '../../../core/use-cases/timelines/get-timeline';
import { ListTimelines } from '../../../core/use-cases/timelines/list-timelines';
import { Travel } from '../../../core/use-cases/travels/travel';
import {
  CreateAnchorDto,
  CreateTimelineDto,
  ListTimelinesQueryDto,
  ParadoxCheckDto,
  RegisterItemDto,
  TravelDto,
  type ProposedChangeDto,
} from '../dtos/family-b.dto';
import { presentAnchor, presentItem, presentTimeline, presentTravel, presentVerdict } from '../presenters/resources';
import { TimelinePageResponse } from '../dtos/responses/family-b.response';
import {
  AnchorResponse,
  ItemResponse,
  TimelineResponse,
  TravelResponse,
  VerdictResponse,
} from '../dtos/responses/resources.response';
import { defineRoute, type Route } from '../route';
import { decodeCursor, encodeCursor } from '../cursor';
import { toInstant } from '../validation/to-instant';
import { parseWindow } from '../validation/decorators';

const TRAVEL_ERRORS = [
  'destination_not_found',
  'journey_in_progress',
  'timeline_window_expired',
  'timeline_closed',
  'items_already_home',
  'items_not_on_journey',
  'items_stranded',
  'unknown_items',
];

const family = 'B';

/** Family B: resource-style operations, as the spec names them. */
export function familyBRoutes(container: Container): Route[] {
  return [
    createAnchorRoute,
    createTimelineRoute,
    createTravelRoute,
    registerItemRoute,
    checkParadoxesRoute,
    listTimelinesRoute,
    getTimelineRoute,
  ].map((route) => route(container));
}

/** POST /v1/anchors: Set an anchor. */
function createAnchorRoute(container: Container): Route {
  const createAnchor = container.get(CreateAnchor);
  return defineRoute(
    {
      method: 'post',
      path: '/v1/anchors',
      operationId: 'createAnchor',
      scope: 'anchors:write',
      family,
      summary: 'Set an anchor.',
      body: CreateAnchorDto,
      docs: {
        description:
          'Sets an anchor, a moment to return to, on the timeline and at the location the traveller is at; ' +
          'the same anchor as `POST /v1/set-anchor` makes, answered as a resource. Without `timestamp`, ' +
          "the account clock's current time.",
        status: 201,
        response: AnchorResponse,
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
      return { status: 201, body: presentAnchor(anchor) };
    },
  );
}

/** POST /v1/timelines: Create a timeline to travel to. */
function createTimelineRoute(container: Container): Route {
  const createTimeline = container.get(CreateTimeline);
  return defineRoute(
    {
      method: 'post',
      path: '/v1/timelines',
      operationId: 'createTimeline',
      scope: 'timelines:write',
      family,
      summary: 'Create a timeline to travel to.',
      body: CreateTimelineDto,
      docs: {
        description:
          'Creates a timeline to travel to, answered with `Location: /timeline/{id}`. Its travel window opens ' +
          'at `created_at` and lasts `window` (default `12 minutes`): travel there before `window_closes_at`, ' +
          'or the travel is refused with `timeline_window_expired` and the timeline becomes `expired`.',
        status: 201,
        response: TimelineResponse,
        errors: [],
        example: { name: 'Apollo 11', destination_time: '1969-07-20T20:17:40Z', window: '12 minutes' },
        headers: { Location: 'The new timeline: /timeline/{id}.' },
      },
    },
    async ({ body }, { accountId }) => {
      const timeline = await createTimeline.execute({
        accountId,
        name: body.name,
        destinationTime: toInstant(body.destination_time),
        windowMinutes: body.window === undefined ? undefined : (parseWindow(body.window) ?? undefined),
      });
      return { status: 201, body: presentTimeline(timeline), headers: { Location: `/timeline/${timeline.id}` } };
    },
  );
}

/** POST /v1/travels: Travel to a timeline, or to an anchor to go home. */
function createTravelRoute(container: Container): Route {
  const travel = container.get(Travel);
  return defineRoute(
    {
      method: 'post',
      path: '/v1/travels',
      operationId: 'createTravel',
      scope: 'travels:write',
      family,
      summary: 'Travel to a timeline, or to an anchor to go home.',
      body: TravelDto,
      docs: {
        description:
          'Travels to a timeline (a journey starts), or to an anchor or `primary` (the way home, ' +
          "carrying in `items_transported` items registered on the journey's timeline). " +
          'Items carried home after the window closed are stranded: return without them.',
        status: 201,
        response: TravelResponse,
        errors: TRAVEL_ERRORS,
        example: {
          destination: 'anc_16fd2706895846d3ab5e0a6d1bc4e0a1',
          items_transported: ['itm_3b241101e2bb42558caf4136c566a962'],
        },
      },
    },
    async ({ body }, { accountId }) => {
      const { travel: record, traveller } = await travel.execute({
        accountId,
        destination: body.destination,
        itemsTransported: body.items_transported,
      });
      return { status: 201, body: presentTravel(record, traveller.location) };
    },
  );
}

/** POST /v1/items: Register an item so it can be carried home. */
function registerItemRoute(container: Container): Route {
  const registerItem = container.get(RegisterItem);
  return defineRoute(
    {
      method: 'post',
      path: '/v1/items',
      operationId: 'registerItem',
      scope: 'items:write',
      family,
      summary: 'Register an item so it can be carried home.',
      body: RegisterItemDto,
      docs: {
        description:
          'Registers an item on the timeline the traveller is on, so that a travel home can carry it. ' +
          "Without `location`, the traveller's location.",
        status: 201,
        response: ItemResponse,
        errors: [],
        example: { description: 'Moon rock', location: 'Sea of Tranquility' },
      },
    },
    async ({ body }, { accountId }) => {
      const { item } = await registerItem.execute({
        accountId,
        description: body.description,
        location: body.location,
      });
      return { status: 201, body: presentItem(item) };
    },
  );
}

/** POST /v1/paradox-checks: Check whether a timeline with proposed changes is stable. */
function checkParadoxesRoute(container: Container): Route {
  const checkParadox = container.get(CheckParadox);
  return defineRoute(
    {
      method: 'post',
      path: '/v1/paradox-checks',
      operationId: 'checkParadoxes',
      scope: 'paradoxes:read',
      family,
      summary: 'Check whether a timeline with proposed changes is stable.',
      body: ParadoxCheckDto,
      docs: {
        description:
          'Checks whether a timeline stays stable with the proposed changes, each either an event at a time ' +
          '(`event` and `time`) or an item carried home (`item_id` alone); without them, the timeline as it ' +
          'stands. Stores nothing. An item that was never registered answers `unknown_items`, never stable.',
        status: 200,
        response: VerdictResponse,
        errors: ['timeline_not_found', 'unknown_items'],
        example: {
          timeline_id: 'tml_7c9e6679742540de944be07fc1f90ae7',
          proposed_changes: [
            { event: 'Moon landing', time: '1969-07-21T20:17:40Z' },
            { item_id: 'itm_3b241101e2bb42558caf4136c566a962' },
          ],
        },
      },
    },
    async ({ body }, { accountId }) => {
      const report = await checkParadox.execute({
        accountId,
        timelineId: body.timeline_id,
        proposedChanges: (body.proposed_changes ?? []).map(toProposedChange),
      });
      return { status: 200, body: presentVerdict(body.timeline_id, report) };
    },
  );
}

/** GET /timelines: List the timelines, oldest first, one page at a time. */
function listTimelinesRoute(container: Container): Route {
  const listTimelines = container.get(ListTimelines);
  return defineRoute(
    {
      method: 'get',
      path: '/timelines',
      operationId: 'listTimelines',
      scope: 'timelines:read',
      family,
      summary: 'List the timelines, oldest first, one page at a time.',
      query: ListTimelinesQueryDto,
      docs: {
        description:
          "The account's timelines, oldest first (`primary` leads), a page at a time: " +
          'pass `next_cursor` back as `cursor`.',
        status: 200,
        response: TimelinePageResponse,
        errors: [],
        example: { limit: 20 },
      },
    },
    async ({ query }, { accountId }) => {
      const page = await listTimelines.execute({
        accountId,
        limit: query.limit,
        after: query.cursor === undefined ? null : timelineCursor(query.cursor),
      });
      return {
        status: 200,
        body: {
          timelines: page.timelines.map(presentTimeline),
          next_cursor: page.next && encodeCursor(page.next.createdAt, page.next.id),
        },
      };
    },
  );
}

/** GET /timeline/:timeline_id: Read one timeline. */
function getTimelineRoute(container: Container): Route {
  const getTimeline = container.get(GetTimeline);
  return defineRoute(
    {
      method: 'get',
      path: '/timeline/:timeline_id',
      operationId: 'getTimeline',
      scope: 'timelines:read',
      family,
      summary: 'Read one timeline.',
      docs: {
        description:
          'One timeline of the account, in the form `POST /v1/timelines` answers; `primary` is the main ' +
          "timeline. Another account's timeline answers `timeline_not_found`, like an unknown one.",
        status: 200,
        response: TimelineResponse,
        errors: ['timeline_not_found'],
        example: { timeline_id: 'tml_7c9e6679742540de944be07fc1f90ae7' },
      },
    },
    async ({ params }, { accountId }) => {
      const timeline = await getTimeline.execute({ accountId, timelineId: params.timeline_id });
      return { status: 200, body: presentTimeline(timeline) };
    },
  );
}

function toProposedChange(change: ProposedChangeDto): ProposedChange {
  if (change.item_id !== undefined) return { kind: 'item', itemId: change.item_id };
  return { kind: 'event', event: change.event ?? '', time: toInstant(change.time ?? '') };
}

function timelineCursor(text: string): TimelineCursor {
  const { at, id } = decodeCursor(text);
  return { createdAt: at, id };
}
