import type { Account, ApiKey } from '../domain/account';
import type { Anchor } from '../domain/anchor';
import type { Item } from '../domain/item';
import type { ProposedName, RecordedUnderName } from '../domain/paradox';
import type { Session } from '../domain/session';
import type { Tally, TallyBounds } from '../domain/tally';
import type { TimeRange } from '../domain/time-range';
import type { Timeline } from '../domain/timeline';
import type { EventManipulation, ListedEvent, TimelineEvent } from '../domain/timeline-event';
import type { Travel } from '../domain/travel';
import type { Traveller } from '../domain/traveller';
import type { WebhookEndpoint } from '../domain/webhook-endpoint';

/**
 * One port per aggregate, each in two parts: its reads (`...Reads`), which is all that the reads of
 * a TransactionBoundary are given, and the repository, its reads and its writes, for an account's
 * exclusive work. Every account-owned lookup takes the account: nothing crosses accounts.
 */

/** What an account keeps of its password: the hash, whether it is due to change, the device stamp. */
export type StoredPassword = Pick<Account, 'passwordHash' | 'passwordChangeDue' | 'deviceStamp'>;

export interface AccountReads {
  findByEmail(email: string): Promise<Account | null>;
  findById(accountId: string): Promise<Account | null>;
}

export interface AccountRepository extends AccountReads {
  /** Throws EmailAlreadyRegistered when the email is taken, also when a concurrent sign-up wins. */
  add(account: Account): Promise<void>;
  /** Replaces the account's password hash, whether its password is due to be changed, and its device stamp. */
  updatePassword(accountId: string, password: StoredPassword): Promise<void>;
}

export interface ApiKeyReads {
  findByDigest(digest: string): Promise<ApiKey | null>;
  findForAccount(accountId: string, keyId: string): Promise<ApiKey | null>;
  /** Every key of the account, revoked ones included, oldest first. */
  listForAccount(accountId: string): Promise<ApiKey[]>;
}

export interface ApiKeyRepository extends ApiKeyReads {
  add(key: ApiKey): Promise<void>;
  /**
   * Replaces the key's revocation and expiry. When a change of either commits, every process's
   * VerifiedKeyCache forgets the key (the database announces it; see docs/decisions.md).
   */
  save(key: ApiKey): Promise<void>;
}

export interface SessionReads {
  findByTokenDigest(tokenDigest: string): Promise<Session | null>;
  /**
   * Every session of the account, ended ones included: at most about MAX_SESSIONS_PER_ACCOUNT,
   * since signing in ends the ended ones and the oldest beyond the cap.
   */
  listForAccount(accountId: string): Promise<Session[]>;
}

export interface SessionRepository extends SessionReads {
  add(session: Session): Promise<void>;
  save(session: Session): Promise<void>;
  remove(sessionId: string): Promise<void>;
}

export interface TravellerReads {
  /** Every account has a traveller from its creation on. */
  getForAccount(accountId: string): Promise<Traveller>;
}

export interface TravellerRepository extends TravellerReads {
  add(traveller: Traveller): Promise<void>;
  save(traveller: Traveller): Promise<void>;
}

/** Position after which a page of timelines continues (ordered by creation, then id). */
export interface TimelineCursor {
  readonly createdAt: Date;
  readonly id: string;
}

export interface TimelineReads {
  findForAccount(accountId: string, timelineId: string): Promise<Timeline | null>;
  listForAccount(accountId: string, page: { limit: number; after: TimelineCursor | null }): Promise<Timeline[]>;
}

export interface TimelineRepository extends TimelineReads {
  add(timeline: Timeline): Promise<void>;
  save(timeline: Timeline): Promise<void>;
}

export interface AnchorReads {
  findForAccount(accountId: string, anchorId: string): Promise<Anchor | null>;
}

export interface AnchorRepository extends AnchorReads {
  add(anchor: Anchor): Promise<void>;
}

export interface ItemReads {
  /** An item found with the same description, at the same place and time on the same timeline. */
  findSame(
    accountId: string,
    item: Pick<Item, 'timelineId' | 'description' | 'location' | 'foundAt'>,
  ): Promise<Item | null>;
  /** The account's items among `itemIds`; ids that are unknown or another account's are left out. */
  findManyForAccount(accountId: string, itemIds: readonly string[]): Promise<Item[]>;
}

export interface ItemRepository extends ItemReads {
  add(item: Item): Promise<void>;
  save(item: Item): Promise<void>;
}

/** Position after which a page of events continues (ordered by time, then id). */
export interface EventCursor {
  readonly time: Date;
  readonly id: string;
}

export interface EventQuery {
  /** The timeline to read; null: the one the account's traveller stands on as the query runs. */
  readonly timelineId: string | null;
  /** A location, or the name of an event to watch; compared with `textKey`. */
  readonly place: string;
  readonly range: TimeRange;
  readonly after: EventCursor | null;
  readonly limit: number;
  /**
   * Only events last written by this version of the account or before (event-feed.ts): the
   * recorded part of a stream, whose later changes follow it. Absent: every event.
   */
  readonly writtenUpTo?: string;
}

/** A page of a timeline's events within a time range, at every place. */
export interface RangePage {
  readonly range: TimeRange;
  readonly after: EventCursor | null;
  readonly limit: number;
}

export interface EventsAt {
  readonly timelineId: string;
  readonly events: ListedEvent[];
}

export interface EventReads {
  findForAccount(accountId: string, eventId: string): Promise<TimelineEvent | null>;
  /**
   * Events at the place (or named so) whose current time is in range, oldest first, and the
   * timeline they were read from, in one read (the traveller's timeline cannot change in between).
   * Null when the query names a timeline the account does not have.
   */
  listAt(accountId: string, query: EventQuery): Promise<EventsAt | null>;
  /**
   * Events of the timeline, at every place, whose current or original time is in range, by current
   * time then id: a page after the cursor. Those moved out of the range by manipulation are listed
   * when they are among the first MOVED_OUT_SIFTED manipulated events by original time in it:
   * every one of them unless a tally of the range's manipulated events is capped.
   */
  listInRange(accountId: string, timelineId: string, page: RangePage): Promise<ListedEvent[]>;
  /**
   * For each proposed name (compared with `textKey`), one answer in the same order: the timeline's
   * events of that name, the first by time then id and counted within `bounds`, and which of the
   * proposed times one of them happens at, exactly. Reads about `bounds.counted` index entries and a
   * probe per proposed time for each name, whatever the timeline holds.
   */
  tallyNamed(
    accountId: string,
    timelineId: string,
    proposals: readonly ProposedName[],
    bounds: TallyBounds,
  ): Promise<RecordedUnderName[]>;
  /**
   * The timeline's displaced events (isDisplacedDependency), or those whose current or original
   * time is in range: the first by original time then id, and their count. Reads at most about
   * twice `bounds.counted` index entries, whatever the timeline holds; `first` is exact unless the
   * count is capped, and then holds the first of those counted.
   */
  tallyDisplaced(
    accountId: string,
    timelineId: string,
    range: TimeRange | undefined,
    bounds: TallyBounds,
  ): Promise<Tally<TimelineEvent>>;
  /**
   * The ids of the timeline's manipulated events (revision above 0) whose current or original time
   * is in range: the first by current time then id, and their count, bounded as tallyDisplaced.
   */
  tallyManipulated(
    accountId: string,
    timelineId: string,
    range: TimeRange,
    bounds: TallyBounds,
  ): Promise<Tally<string>>;
  /** The event's `last` latest manipulations, first to last. */
  manipulationsOf(accountId: string, eventId: string, last: number): Promise<EventManipulation[]>;
}

export interface EventRepository extends EventReads {
  add(event: TimelineEvent): Promise<void>;
  save(event: TimelineEvent): Promise<void>;
  addManipulation(manipulation: EventManipulation): Promise<void>;
}

/** Position after which a page of webhook endpoints continues (ordered by creation, then id). */
export interface WebhookEndpointCursor {
  readonly createdAt: Date;
  readonly id: string;
}

export interface WebhookEndpointReads {
  findForAccount(accountId: string, endpointId: string): Promise<WebhookEndpoint | null>;
  listForAccount(
    accountId: string,
    page: { limit: number; after: WebhookEndpointCursor | null },
  ): Promise<WebhookEndpoint[]>;
  /** At most MAX_WEBHOOK_ENDPOINTS, so counting reads a bounded few index entries. */
  countForAccount(accountId: string): Promise<number>;
}

/**
 * The owner's changes, each writing only its own columns: deliveries write `failing_since` and the
 * state of an endpoint that failed, outside the account's units, and a roll must not undo that.
 */
export interface WebhookEndpointRepository extends WebhookEndpointReads {
  add(endpoint: WebhookEndpoint): Promise<void>;
  /** Writes `status`, `disabledReason` and `failingSince`. */
  saveState(endpoint: WebhookEndpoint): Promise<void>;
  /** Writes `secret`, `previousSecret` and `previousSecretUntil`. */
  saveSecrets(endpoint: WebhookEndpoint): Promise<void>;
  /** Removes the endpoint, its messages and their attempts with it; none: nothing happens. */
  remove(accountId: string, endpointId: string): Promise<void>;
}

export interface TravelRepository {
  add(travel: Travel): Promise<void>;
}

/** What reads are given: every aggregate's reads, and no way to write. */
export interface ReadRepositories {
  readonly accounts: AccountReads;
  readonly apiKeys: ApiKeyReads;
  readonly sessions: SessionReads;
  readonly travellers: TravellerReads;
  readonly timelines: TimelineReads;
  readonly anchors: AnchorReads;
  readonly items: ItemReads;
  readonly events: EventReads;
  readonly webhookEndpoints: WebhookEndpointReads;
}

/** What an account's exclusive work is given: every aggregate's reads and writes. */
export interface Repositories extends ReadRepositories {
  readonly accounts: AccountRepository;
  readonly apiKeys: ApiKeyRepository;
  readonly sessions: SessionRepository;
  readonly travellers: TravellerRepository;
  readonly timelines: TimelineRepository;
  readonly anchors: AnchorRepository;
  readonly items: ItemRepository;
  readonly travels: TravelRepository;
  readonly events: EventRepository;
  readonly webhookEndpoints: WebhookEndpointRepository;
}
