import { samePermissions } from '../../../src/core/domain/api-key-permissions';
import type { Account, ApiKey } from '../../../src/core/domain/account';
import type { Anchor } from '../../../src/core/domain/anchor';
import { EmailAlreadyRegistered } from '../../../src/core/domain/errors';
import type { Item } from '../../../src/core/domain/item';
import { MOVED_OUT_SIFTED, type ProposedName, type RecordedUnderName } from '../../../src/core/domain/paradox';
import type { Session } from '../../../src/core/domain/session';
import type { Tally, TallyBounds } from '../../../src/core/domain/tally';
import { tallyOf } from '../tally-of';
import type { StoredPassword } from '../../../src/core/ports/repositories';
import { textKey } from '../../../src/core/domain/text-key';
import type { TimeRange } from '../../../src/core/domain/time-range';
import type { Timeline } from '../../../src/core/domain/timeline';
import {
  isDisplacedDependency,
  type EventManipulation,
  type TimelineEvent,
} from '../../../src/core/domain/timeline-event';
import type { Travel } from '../../../src/core/domain/travel';
import type { Traveller } from '../../../src/core/domain/traveller';
import type {
  AccountRepository,
  AnchorRepository,
  ApiKeyRepository,
  EventCursor,
  EventQuery,
  EventsAt,
  EventRepository,
  ItemRepository,
  RangePage,
  SessionRepository,
  TimelineCursor,
  TimelineRepository,
  TravelRepository,
  TravellerRepository,
} from '../../../src/core/ports/repositories';
import { type Journal, type Table, write } from './table';

/** Account-owned rows are keyed by account and id: an id of another account is simply not there. */
export function ownedKey(accountId: string, id: string): string {
  return `${accountId}/${id}`;
}

export class InMemoryAccountRepository implements AccountRepository {
  constructor(
    private readonly table: Table<Account>,
    private readonly journal: Journal | null,
  ) {}

  add(account: Account): Promise<void> {
    return write(this.journal, (applying) => {
      // The email column is unique, as in the real schema; the use case stores it normalised.
      if (this.table.values().some((existing) => existing.email === account.email)) throw new EmailAlreadyRegistered();
      this.table.insert(account.id, account, applying);
    });
  }

  async findByEmail(email: string): Promise<Account | null> {
    return this.table.values().find((account) => account.email === email) ?? null;
  }

  async findById(accountId: string): Promise<Account | null> {
    return this.table.get(accountId) ?? null;
  }

  updatePassword(accountId: string, password: StoredPassword): Promise<void> {
    return write(this.journal, (applying) => {
      const account = this.table.get(accountId);
      if (!account) throw applying.missing(`account '${accountId}'`);
      this.table.update(accountId, { ...account, ...password }, applying);
    });
  }
}

export class InMemoryApiKeyRepository implements ApiKeyRepository {
  constructor(
    private readonly table: Table<ApiKey>,
    private readonly journal: Journal | null,
    /** Told of a change of a key's revocation, expiry or permissions once it commits (the database's NOTIFY). */
    private readonly announce: (keyId: string) => void = () => undefined,
  ) {}

  add(key: ApiKey): Promise<void> {
    return write(this.journal, (applying) => {
      if (this.table.values().some((existing) => existing.digest === key.digest))
        throw new Error('Duplicate API key digest');
      this.table.insert(key.id, key, applying);
    });
  }

  async findByDigest(digest: string): Promise<ApiKey | null> {
    return this.table.values().find((key) => key.digest === digest) ?? null;
  }

  async findForAccount(accountId: string, keyId: string): Promise<ApiKey | null> {
    const key = this.table.get(keyId);
    return key && key.accountId === accountId ? key : null;
  }

  async listForAccount(accountId: string): Promise<ApiKey[]> {
    return this.table
      .values()
      .filter((key) => key.accountId === accountId)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || compareIds(a.id, b.id));
  }

  save(key: ApiKey): Promise<void> {
    return write(this.journal, (applying) => {
      const stored = this.table.get(key.id);
      if (!stored) throw applying.missing(`API key '${key.id}'`);
      // As the real adapter: only what the port lets change is written.
      this.table.update(
        key.id,
        { ...stored, revokedAt: key.revokedAt, expiresAt: key.expiresAt, name: key.name, permissions: key.permissions },
        applying,
      );
      const changed =
        !sameInstant(stored.revokedAt, key.revokedAt) ||
        !sameInstant(stored.expiresAt, key.expiresAt) ||
        !samePermissions(stored.permissions, key.permissions);
      if (changed) applying.afterCommit(() => this.announce(key.id));
    });
  }
}

export class InMemorySessionRepository implements SessionRepository {
  constructor(
    private readonly table: Table<Session>,
    private readonly journal: Journal | null,
  ) {}

  add(session: Session): Promise<void> {
    return write(this.journal, (applying) => {
      if (this.table.values().some((existing) => existing.tokenDigest === session.tokenDigest))
        throw new Error('Duplicate session token digest');
      this.table.insert(session.id, session, applying);
    });
  }

  async findByTokenDigest(tokenDigest: string): Promise<Session | null> {
    return this.table.values().find((session) => session.tokenDigest === tokenDigest) ?? null;
  }

  save(session: Session): Promise<void> {
    return write(this.journal, (applying) => this.table.update(session.id, session, applying));
  }

  remove(sessionId: string): Promise<void> {
    return write(this.journal, (applying) => this.table.delete(sessionId, applying));
  }

  async listForAccount(accountId: string): Promise<Session[]> {
    return this.table.values().filter((session) => session.accountId === accountId);
  }
}

export class InMemoryTravellerRepository implements TravellerRepository {
  constructor(
    private readonly table: Table<Traveller>,
    private readonly journal: Journal | null,
  ) {}

  add(traveller: Traveller): Promise<void> {
    return write(this.journal, (applying) => this.table.insert(traveller.accountId, traveller, applying));
  }

  async getForAccount(accountId: string): Promise<Traveller> {
    const traveller = this.table.get(accountId);
    if (!traveller) throw new Error(`Account '${accountId}' has no traveller`);
    return traveller;
  }

  save(traveller: Traveller): Promise<void> {
    return write(this.journal, (applying) => this.table.update(traveller.accountId, traveller, applying));
  }
}

export class InMemoryTimelineRepository implements TimelineRepository {
  constructor(
    private readonly table: Table<Timeline>,
    private readonly journal: Journal | null,
  ) {}

  add(timeline: Timeline): Promise<void> {
    return write(this.journal, (applying) =>
      this.table.insert(ownedKey(timeline.accountId, timeline.id), timeline, applying),
    );
  }

  save(timeline: Timeline): Promise<void> {
    return write(this.journal, (applying) =>
      this.table.update(ownedKey(timeline.accountId, timeline.id), timeline, applying),
    );
  }

  async findForAccount(accountId: string, timelineId: string): Promise<Timeline | null> {
    return this.table.get(ownedKey(accountId, timelineId)) ?? null;
  }

  async listForAccount(accountId: string, page: { limit: number; after: TimelineCursor | null }): Promise<Timeline[]> {
    const { after, limit } = page;
    return this.table
      .values()
      .filter((timeline) => timeline.accountId === accountId)
      .sort(byCreationThenId)
      .filter((timeline) => after === null || byCreationThenId(timeline, after) > 0)
      .slice(0, Math.max(0, limit));
  }
}

function byCreationThenId(a: TimelineCursor, b: TimelineCursor): number {
  return a.createdAt.getTime() - b.createdAt.getTime() || compareIds(a.id, b.id);
}

export class InMemoryAnchorRepository implements AnchorRepository {
  constructor(
    private readonly table: Table<Anchor>,
    private readonly journal: Journal | null,
  ) {}

  add(anchor: Anchor): Promise<void> {
    return write(this.journal, (applying) =>
      this.table.insert(ownedKey(anchor.accountId, anchor.id), anchor, applying),
    );
  }

  async findForAccount(accountId: string, anchorId: string): Promise<Anchor | null> {
    return this.table.get(ownedKey(accountId, anchorId)) ?? null;
  }
}

export class InMemoryItemRepository implements ItemRepository {
  constructor(
    private readonly table: Table<Item>,
    private readonly journal: Journal | null,
  ) {}

  add(item: Item): Promise<void> {
    return write(this.journal, (applying) => this.table.insert(ownedKey(item.accountId, item.id), item, applying));
  }

  save(item: Item): Promise<void> {
    return write(this.journal, (applying) => this.table.update(ownedKey(item.accountId, item.id), item, applying));
  }

  /** Exact match, as the real adapter's WHERE; the earliest registered wins if there are several. */
  async findSame(
    accountId: string,
    item: Pick<Item, 'timelineId' | 'description' | 'location' | 'foundAt'>,
  ): Promise<Item | null> {
    const same = this.table
      .values()
      .filter(
        (stored) =>
          stored.accountId === accountId &&
          stored.timelineId === item.timelineId &&
          stored.description.toLowerCase() === item.description.toLowerCase() &&
          stored.location.toLowerCase() === item.location.toLowerCase() &&
          stored.foundAt.getTime() === item.foundAt.getTime(),
      )
      .sort((a, b) => a.registeredAt.getTime() - b.registeredAt.getTime() || compareIds(a.id, b.id));
    return same[0] ?? null;
  }

  async findManyForAccount(accountId: string, itemIds: readonly string[]): Promise<Item[]> {
    return [...new Set(itemIds)].flatMap((id) => this.table.get(ownedKey(accountId, id)) ?? []);
  }
}

export class InMemoryTravelRepository implements TravelRepository {
  constructor(
    private readonly table: Table<Travel>,
    private readonly journal: Journal | null,
  ) {}

  add(travel: Travel): Promise<void> {
    return write(this.journal, (applying) =>
      this.table.insert(ownedKey(travel.accountId, travel.id), travel, applying),
    );
  }
}

export class InMemoryEventRepository implements EventRepository {
  constructor(
    private readonly events: Table<TimelineEvent>,
    private readonly manipulations: Table<EventManipulation>,
    private readonly journal: Journal | null,
    /** The account's timelines, and where its traveller stands: the timeline a query without one reads. */
    private readonly whereabouts: {
      readonly travellers: Pick<TravellerRepository, 'getForAccount'>;
      readonly timelines: Pick<TimelineRepository, 'findForAccount'>;
    },
  ) {}

  add(event: TimelineEvent): Promise<void> {
    return write(this.journal, (applying) => this.events.insert(ownedKey(event.accountId, event.id), event, applying));
  }

  save(event: TimelineEvent): Promise<void> {
    return write(this.journal, (applying) => this.events.update(ownedKey(event.accountId, event.id), event, applying));
  }

  async findForAccount(accountId: string, eventId: string): Promise<TimelineEvent | null> {
    return this.events.get(ownedKey(accountId, eventId)) ?? null;
  }

  async listAt(accountId: string, query: EventQuery): Promise<EventsAt | null> {
    const place = textKey(query.place);
    const { after, range } = query;
    if (query.timelineId !== null && !(await this.whereabouts.timelines.findForAccount(accountId, query.timelineId)))
      return null;
    const timelineId = query.timelineId ?? (await this.whereabouts.travellers.getForAccount(accountId)).timelineId;
    const events = this.ofTimeline(accountId, timelineId)
      .filter((event) => textKey(event.location) === place || textKey(event.description) === place)
      .filter((event) => range.contains(event.time))
      .filter((event) => after === null || byTimeThenId(event, after) > 0)
      .slice(0, Math.max(0, query.limit));
    return { timelineId, events };
  }

  async listInRange(
    accountId: string,
    timelineId: string,
    { range, after, limit }: RangePage,
  ): Promise<TimelineEvent[]> {
    const events = this.ofTimeline(accountId, timelineId);
    // As PostgreSQL's: the moved-out are sifted from the first manipulated events by original time.
    const candidates = new Set(
      events
        .filter((event) => event.revision > 0 && range.contains(event.originalTime))
        .sort((a, b) => byTimeThenId({ time: a.originalTime, id: a.id }, { time: b.originalTime, id: b.id }))
        .slice(0, MOVED_OUT_SIFTED),
    );
    return events
      .filter((event) => range.contains(event.time) || candidates.has(event))
      .filter((event) => after === null || byTimeThenId(event, after) > 0)
      .slice(0, Math.max(0, limit));
  }

  async tallyNamed(
    accountId: string,
    timelineId: string,
    proposals: readonly ProposedName[],
    bounds: TallyBounds,
  ): Promise<RecordedUnderName[]> {
    const events = this.ofTimeline(accountId, timelineId);
    return proposals.map(({ name, times }) => {
      const named = events.filter((event) => textKey(event.description) === textKey(name));
      const recorded = new Set(named.map((event) => event.time.getTime()));
      return { name, events: tallyOf(named, bounds), recordedAt: times.filter((time) => recorded.has(time.getTime())) };
    });
  }

  async tallyDisplaced(
    accountId: string,
    timelineId: string,
    range: TimeRange | undefined,
    bounds: TallyBounds,
  ): Promise<Tally<TimelineEvent>> {
    const displaced = this.ofTimeline(accountId, timelineId)
      .filter((event) => isDisplacedDependency(event) && inRange(event, range))
      .sort((a, b) => byTimeThenId({ time: a.originalTime, id: a.id }, { time: b.originalTime, id: b.id }));
    return tallyOf(displaced, bounds);
  }

  async tallyManipulated(
    accountId: string,
    timelineId: string,
    range: TimeRange,
    bounds: TallyBounds,
  ): Promise<Tally<string>> {
    const manipulated = this.ofTimeline(accountId, timelineId)
      .filter((event) => event.revision > 0 && inRange(event, range))
      .map((event) => event.id);
    return tallyOf(manipulated, bounds);
  }

  addManipulation(manipulation: EventManipulation): Promise<void> {
    return write(this.journal, (applying) =>
      this.manipulations.insert(ownedKey(manipulation.accountId, manipulation.id), manipulation, applying),
    );
  }

  async manipulationsOf(accountId: string, eventId: string, last: number): Promise<EventManipulation[]> {
    const all = this.manipulations
      .values()
      .filter((manipulation) => manipulation.accountId === accountId && manipulation.eventId === eventId)
      .sort((a, b) => a.revision - b.revision);
    return all.slice(Math.max(0, all.length - last));
  }

  /** The timeline's events, oldest first (by time, then id), as every query of the port returns them. */
  private ofTimeline(accountId: string, timelineId: string): TimelineEvent[] {
    return this.events
      .values()
      .filter((event) => event.accountId === accountId && event.timelineId === timelineId)
      .sort(byTimeThenId);
  }
}

function byTimeThenId(a: EventCursor, b: EventCursor): number {
  return a.time.getTime() - b.time.getTime() || compareIds(a.id, b.id);
}

/** Monitored ranges catch an event where it happens now or where it happened before manipulation. */
function inRange(event: TimelineEvent, range: TimeRange | undefined): boolean {
  return range === undefined || range.contains(event.time) || range.contains(event.originalTime);
}

function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sameInstant(a: Date | null, b: Date | null): boolean {
  return a === null || b === null ? a === b : a.getTime() === b.getTime();
}
