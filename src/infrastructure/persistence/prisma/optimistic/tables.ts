import type { TableSpec } from './write-statement';

// The tables an optimistic unit of work writes, by the field names of the rows the Prisma
// repositories write (prisma/schema.prisma maps them the same way).

export const TRAVELLERS: TableSpec = {
  table: 'travellers',
  key: ['accountId'],
  columns: {
    accountId: ['account_id', 'text'],
    clockReading: ['clock_reading', 'timestamptz'],
    clockReadAt: ['clock_read_at', 'timestamptz'],
    clockPaused: ['clock_paused', 'boolean'],
    timelineId: ['timeline_id', 'text'],
    location: ['location', 'text'],
    journeyTravelId: ['journey_travel_id', 'text'],
  },
};

export const TIMELINES: TableSpec = {
  table: 'timelines',
  key: ['accountId', 'id'],
  columns: {
    accountId: ['account_id', 'text'],
    id: ['id', 'text'],
    name: ['name', 'text'],
    destinationTime: ['destination_time', 'timestamptz'],
    createdAt: ['created_at', 'timestamptz'],
    status: ['status', 'text'],
    windowMinutes: ['window_minutes', 'int'],
  },
};

export const ANCHORS: TableSpec = {
  table: 'anchors',
  key: ['accountId', 'id'],
  columns: {
    accountId: ['account_id', 'text'],
    id: ['id', 'text'],
    timestamp: ['timestamp', 'timestamptz'],
    description: ['description', 'text'],
    timelineId: ['timeline_id', 'text'],
    location: ['location', 'text'],
    createdAt: ['created_at', 'timestamptz'],
  },
};

export const ITEMS: TableSpec = {
  table: 'items',
  key: ['accountId', 'id'],
  columns: {
    accountId: ['account_id', 'text'],
    id: ['id', 'text'],
    description: ['description', 'text'],
    location: ['location', 'text'],
    timelineId: ['timeline_id', 'text'],
    registeredAt: ['registered_at', 'timestamptz'],
    foundAt: ['found_at', 'timestamptz'],
    carriedHomeBy: ['carried_home_by', 'text'],
  },
};

export const TRAVELS: TableSpec = {
  table: 'travels',
  key: ['accountId', 'id'],
  columns: {
    accountId: ['account_id', 'text'],
    id: ['id', 'text'],
    destination: ['destination', 'text'],
    fromTimelineId: ['from_timeline_id', 'text'],
    toTimelineId: ['to_timeline_id', 'text'],
    departedAt: ['departed_at', 'timestamptz'],
    arrivalTime: ['arrival_time', 'timestamptz'],
    itemsTransported: ['items_transported', 'text[]'],
  },
};

export const EVENTS: TableSpec = {
  table: 'events',
  key: ['accountId', 'id'],
  columns: {
    accountId: ['account_id', 'text'],
    id: ['id', 'text'],
    timelineId: ['timeline_id', 'text'],
    kind: ['kind', 'text'],
    time: ['time', 'timestamptz'],
    originalTime: ['original_time', 'timestamptz'],
    description: ['description', 'text'],
    location: ['location', 'text'],
    descriptionKey: ['description_key', 'text'],
    locationKey: ['location_key', 'text'],
    subjectId: ['subject_id', 'text'],
    recordedAt: ['recorded_at', 'timestamptz'],
    revision: ['revision', 'int'],
  },
};

export const EVENT_MANIPULATIONS: TableSpec = {
  table: 'event_manipulations',
  key: ['accountId', 'id'],
  columns: {
    accountId: ['account_id', 'text'],
    id: ['id', 'text'],
    eventId: ['event_id', 'text'],
    action: ['action', 'text'],
    fromTime: ['from_time', 'timestamptz'],
    toTime: ['to_time', 'timestamptz'],
    appliedAt: ['applied_at', 'timestamptz'],
    revision: ['revision', 'int'],
  },
};
