// What "nothing half-written" means for this schema (docs/operations.md): every write of the API is
// one transaction, so whatever a crash or a race interrupts, the stored rows of an account satisfy
// these rules. Each broken rule is reported as one line, so a test asserts the list is empty and a
// failure says what is wrong.
import type { PrismaClient } from '../../src/infrastructure/database/driver/generated/client';

/** Kinds of event that record the write of another row, by the prefix of that row's id. */
const RECORDED_BY = { anc: 'anchor_set', itm: 'item_retrieved', trv: 'arrival' } as const;

export async function halfWrites(prisma: PrismaClient, accountIds: readonly string[]): Promise<string[]> {
  const problems: string[] = [];
  for (const accountId of accountIds)
    problems.push(...(await halfWritesOf(prisma, accountId)).map((problem) => `${accountId}: ${problem}`));
  return problems;
}

async function halfWritesOf(prisma: PrismaClient, accountId: string): Promise<string[]> {
  const where = { where: { accountId } };
  const [traveller, timelines, anchors, items, travels, events, keys] = await prisma.$transaction([
    prisma.traveller.findUnique(where),
    prisma.timeline.findMany(where),
    prisma.anchor.findMany(where),
    prisma.item.findMany(where),
    prisma.travel.findMany(where),
    prisma.event.findMany(where),
    prisma.idempotencyKey.findMany(where),
  ]);
  const problems: string[] = [];
  if (!traveller) return ['no traveller row'];

  const timelineIds = new Set(timelines.map((timeline) => timeline.id));
  if (!timelineIds.has('primary')) problems.push('no primary timeline');
  const onTimeline = (what: string, timelineId: string) => {
    if (!timelineIds.has(timelineId)) problems.push(`${what} is on a missing timeline ${timelineId}`);
  };

  // Each anchor, item and travel was written with its event, in one transaction: one each way.
  const subjects: { id: string; timelineId: string; kind: string }[] = [
    ...anchors.map((anchor) => ({ id: anchor.id, timelineId: anchor.timelineId, kind: RECORDED_BY.anc })),
    ...items.map((item) => ({ id: item.id, timelineId: item.timelineId, kind: RECORDED_BY.itm })),
    ...travels.map((travel) => ({ id: travel.id, timelineId: travel.toTimelineId, kind: RECORDED_BY.trv })),
  ];
  const eventsBySubject = new Map<string, typeof events>();
  for (const event of events) {
    onTimeline(`event ${event.id}`, event.timelineId);
    if (event.subjectId === null) continue;
    eventsBySubject.set(event.subjectId, [...(eventsBySubject.get(event.subjectId) ?? []), event]);
  }
  for (const subject of subjects) {
    onTimeline(subject.id, subject.timelineId);
    const recorded = (eventsBySubject.get(subject.id) ?? []).filter((event) => event.kind === subject.kind);
    if (recorded.length !== 1) problems.push(`${subject.id} has ${recorded.length} ${subject.kind} events`);
    else if (recorded[0].timelineId !== subject.timelineId)
      problems.push(`${subject.id}'s event is on another timeline`);
  }
  const subjectIds = new Set(subjects.map((subject) => subject.id));
  for (const event of events) {
    const recorded = Object.values(RECORDED_BY).some((kind) => kind === event.kind);
    if (recorded && (event.subjectId === null || !subjectIds.has(event.subjectId)))
      problems.push(`event ${event.id} (${event.kind}) records a missing ${event.subjectId}`);
  }

  // Items carried home and the travels that carried them agree both ways.
  const travelsById = new Map(travels.map((travel) => [travel.id, travel]));
  const itemsById = new Map(items.map((item) => [item.id, item]));
  for (const travel of travels) {
    onTimeline(`travel ${travel.id} (from)`, travel.fromTimelineId);
    for (const itemId of travel.itemsTransported) {
      if (itemsById.get(itemId)?.carriedHomeBy !== travel.id)
        problems.push(`travel ${travel.id} carried ${itemId}, which does not name it`);
    }
  }
  for (const item of items) {
    if (item.carriedHomeBy === null) continue;
    if (!travelsById.get(item.carriedHomeBy)?.itemsTransported.includes(item.id))
      problems.push(`item ${item.id} names travel ${item.carriedHomeBy}, which did not carry it`);
  }

  // Where the traveller is, the journey in progress and the timelines' statuses tell one story.
  onTimeline('the traveller', traveller.timelineId);
  const away = traveller.timelineId !== 'primary';
  const journey = traveller.journeyTravelId === null ? undefined : travelsById.get(traveller.journeyTravelId);
  if (away !== (traveller.journeyTravelId !== null))
    problems.push(`traveller on ${traveller.timelineId} with journey ${traveller.journeyTravelId}`);
  if (traveller.journeyTravelId !== null && journey?.toTimelineId !== traveller.timelineId)
    problems.push(`journey ${traveller.journeyTravelId} is missing or went elsewhere`);
  for (const timeline of timelines) {
    if (timeline.status === 'active' && timeline.id !== traveller.timelineId)
      problems.push(`timeline ${timeline.id} is active but the traveller is on ${traveller.timelineId}`);
    if (
      timeline.status === 'completed' &&
      !travels.some((travel) => travel.fromTimelineId === timeline.id && travel.toTimelineId === 'primary')
    ) {
      problems.push(`timeline ${timeline.id} is completed with no travel home from it`);
    }
  }
  if (away && timelines.find((timeline) => timeline.id === traveller.timelineId)?.status !== 'active')
    problems.push(`the traveller is on ${traveller.timelineId}, which is not active`);

  // A kept answer names what it created: that row exists.
  const created = new Set([...subjectIds, ...timelineIds]);
  for (const key of keys) {
    const id = createdId(key.responseStatus, key.responseBody);
    if (id !== undefined && !created.has(id))
      problems.push(`Idempotency-Key ${key.key} answered ${id}, which is missing`);
  }
  return problems;
}

/** The id a kept 2xx answer reports having created, if any. */
function createdId(status: number | null, body: unknown): string | undefined {
  if (status === null || status >= 300 || typeof body !== 'object' || body === null) return undefined;
  const id = 'id' in body ? body.id : undefined;
  return typeof id === 'string' && /^(anc|itm|trv|tml)_/.test(id) ? id : undefined;
}
