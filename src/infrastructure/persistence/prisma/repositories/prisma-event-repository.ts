import type { TimeRange } from '../../../../core/domain/time-range';
import { textDigest } from '../text-digest';
import type { EventKind, EventManipulation, TimelineEvent } from '../../../../core/domain/timeline-event';
import type { EventQuery, EventRepository } from '../../../../core/ports/repositories';
import type { Db } from '../db';

const KINDS: readonly EventKind[] = ['arrival', 'anchor_set', 'item_retrieved', 'manipulation'];

type EventRow = Omit<TimelineEvent, 'kind'> & { kind: string; descriptionKey: string; locationKey: string };

const EVENT_COLUMNS = {
  accountId: true,
  id: true,
  timelineId: true,
  kind: true,
  time: true,
  originalTime: true,
  description: true,
  location: true,
  subjectId: true,
  recordedAt: true,
  revision: true,
} as const;

export class PrismaEventRepository implements EventRepository {
  constructor(private readonly db: Db) {}

  async add(event: TimelineEvent): Promise<void> {
    await this.db.event.create({ data: toRow(event) });
  }

  async save(event: TimelineEvent): Promise<void> {
    const { accountId, id, ...fields } = toRow(event);
    await this.db.event.update({ where: { accountId_id: { accountId, id } }, data: fields });
  }

  async findForAccount(accountId: string, eventId: string): Promise<TimelineEvent | null> {
    const row = await this.db.event.findUnique({ where: { accountId_id: { accountId, id: eventId } }, select: EVENT_COLUMNS });
    return row && toDomain(row);
  }

  async listAt(accountId: string, query: EventQuery): Promise<TimelineEvent[]> {
    const key = textDigest(query.place);
    const { after, range } = query;
    const rows = await this.db.event.findMany({
      where: {
        accountId,
        timelineId: query.timelineId,
        OR: [{ locationKey: key }, { descriptionKey: key }],
        time: { gte: range.start, lte: range.end },
        ...(after && { AND: [{ OR: [{ time: { gt: after.time } }, { time: after.time, id: { gt: after.id } }] }] }),
      },
      orderBy: [{ time: 'asc' }, { id: 'asc' }],
      take: query.limit,
      select: EVENT_COLUMNS,
    });
    return rows.map(toDomain);
  }

  async findNamed(accountId: string, timelineId: string, names: readonly string[], range?: TimeRange): Promise<TimelineEvent[]> {
    const rows = await this.db.event.findMany({
      where: { accountId, timelineId, descriptionKey: { in: [...new Set(names.map(textDigest))] }, ...inRange(range) },
      orderBy: [{ time: 'asc' }, { id: 'asc' }],
      select: EVENT_COLUMNS,
    });
    return rows.map(toDomain);
  }

  async findManipulated(accountId: string, timelineId: string, range?: TimeRange): Promise<TimelineEvent[]> {
    const rows = await this.db.event.findMany({
      where: { accountId, timelineId, revision: { gt: 0 }, ...inRange(range) },
      orderBy: [{ time: 'asc' }, { id: 'asc' }],
      select: EVENT_COLUMNS,
    });
    return rows.map(toDomain);
  }

  async addManipulation(manipulation: EventManipulation): Promise<void> {
    await this.db.eventManipulation.create({ data: manipulation });
  }

  manipulationsOf(accountId: string, eventId: string): Promise<EventManipulation[]> {
    return this.db.eventManipulation.findMany({ where: { accountId, eventId }, orderBy: { revision: 'asc' } });
  }
}

/** An event is in a monitored range when it happens there now, or happened there before a manipulation. */
function inRange(range: TimeRange | undefined) {
  if (!range) return {};
  const within = { gte: range.start, lte: range.end };
  return { OR: [{ time: within }, { originalTime: within }] };
}

function toRow(event: TimelineEvent): EventRow {
  return { ...event, descriptionKey: textDigest(event.description), locationKey: textDigest(event.location) };
}

function toDomain(row: Omit<EventRow, 'descriptionKey' | 'locationKey'>): TimelineEvent {
  const kind = KINDS.find((known) => known === row.kind);
  if (!kind) throw new Error(`Event ${row.id} has an unknown stored kind '${row.kind}'.`);
  return { ...row, kind };
}
