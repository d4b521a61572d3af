// The tables the raw statements read and write (the optimistic writes, the busiest reads), by the
// field names of the rows the Prisma repositories use. Every column is its field's name in
// snake_case, as prisma/schema.prisma maps them; tests/integration/repositories/
// optimistic-exclusive.test.ts writes each table through these and reads it back through Prisma.

export type SqlType = 'text' | 'timestamptz' | 'boolean' | 'int' | 'bigint' | 'text[]';

export interface TableSpec {
  readonly table: string;
  /** The fields that identify a row. */
  readonly key: readonly string[];
  readonly types: Readonly<Record<string, SqlType>>;
}

const columns = new Map<string, string>();

/**
 * The column of a field: `clockReadAt` is stored as `clock_read_at`. Asked for every column of
 * every optimistic write, and the fields are the few of the tables below: each is worked out once.
 */
export function columnOf(field: string): string {
  let column = columns.get(field);
  if (column === undefined) {
    column = field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
    columns.set(field, column);
  }
  return column;
}

/**
 * The table's columns for a SELECT, each named as its field (`clock_read_at AS "clockReadAt"`): the
 * text of statements written out once, since building a Prisma.Sql for every request cost 7 % of
 * the CPU of `GET /timeline/{id}` (docs/performance.md).
 */
export function selectList(spec: TableSpec, except: readonly string[] = []): string {
  const fields = Object.keys(spec.types).filter((field) => !except.includes(field));
  return fields.map((field) => `"${columnOf(field)}" AS "${field}"`).join(', ');
}

export const TRAVELLERS: TableSpec = {
  table: 'travellers',
  key: ['accountId'],
  types: {
    accountId: 'text',
    clockReading: 'timestamptz',
    clockReadAt: 'timestamptz',
    clockPaused: 'boolean',
    timelineId: 'text',
    location: 'text',
    journeyTravelId: 'text',
  },
};

export const TIMELINES: TableSpec = {
  table: 'timelines',
  key: ['accountId', 'id'],
  types: {
    accountId: 'text',
    id: 'text',
    name: 'text',
    destinationTime: 'timestamptz',
    createdAt: 'timestamptz',
    status: 'text',
    windowMinutes: 'int',
  },
};

export const ANCHORS: TableSpec = {
  table: 'anchors',
  key: ['accountId', 'id'],
  types: {
    accountId: 'text',
    id: 'text',
    timestamp: 'timestamptz',
    description: 'text',
    timelineId: 'text',
    location: 'text',
    createdAt: 'timestamptz',
  },
};

export const ITEMS: TableSpec = {
  table: 'items',
  key: ['accountId', 'id'],
  types: {
    accountId: 'text',
    id: 'text',
    description: 'text',
    location: 'text',
    timelineId: 'text',
    registeredAt: 'timestamptz',
    foundAt: 'timestamptz',
    carriedHomeBy: 'text',
  },
};

export const TRAVELS: TableSpec = {
  table: 'travels',
  key: ['accountId', 'id'],
  types: {
    accountId: 'text',
    id: 'text',
    destination: 'text',
    fromTimelineId: 'text',
    toTimelineId: 'text',
    departedAt: 'timestamptz',
    arrivalTime: 'timestamptz',
    itemsTransported: 'text[]',
  },
};

export const EVENTS: TableSpec = {
  table: 'events',
  key: ['accountId', 'id'],
  types: {
    accountId: 'text',
    id: 'text',
    timelineId: 'text',
    kind: 'text',
    time: 'timestamptz',
    originalTime: 'timestamptz',
    description: 'text',
    location: 'text',
    descriptionKey: 'text',
    locationKey: 'text',
    subjectId: 'text',
    recordedAt: 'timestamptz',
    revision: 'int',
  },
};

export const EVENT_MANIPULATIONS: TableSpec = {
  table: 'event_manipulations',
  key: ['accountId', 'id'],
  types: {
    accountId: 'text',
    id: 'text',
    eventId: 'text',
    action: 'text',
    fromTime: 'timestamptz',
    toTime: 'timestamptz',
    appliedAt: 'timestamptz',
    revision: 'int',
  },
};
