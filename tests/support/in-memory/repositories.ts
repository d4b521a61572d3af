import type { Account, ApiKey } from '../../../src/core/domain/account';
import type { Anchor } from '../../../src/core/domain/anchor';
import { EmailAlreadyRegistered } from '../../../src/core/domain/errors';
import type { Item } from '../../../src/core/domain/item';
import type { Timeline } from '../../../src/core/domain/timeline';
import type { Travel } from '../../../src/core/domain/travel';
import type { Traveller } from '../../../src/core/domain/traveller';
import type {
  AccountRepository,
  AnchorRepository,
  ApiKeyRepository,
  ItemRepository,
  TimelineCursor,
  TimelineRepository,
  TravelRepository,
  TravellerRepository,
} from '../../../src/core/ports/repositories';
import type { Journal, Table } from './table';

/** Account-owned rows are keyed by account and id: an id of another account is simply not there. */
export function ownedKey(accountId: string, id: string): string {
  return `${accountId}/${id}`;
}

export class InMemoryAccountRepository implements AccountRepository {
  constructor(
    private readonly table: Table<Account>,
    private readonly journal: Journal | null,
  ) {}

  async add(account: Account): Promise<void> {
    // The email column is unique, as in the real schema; the use case stores it normalised.
    if (this.table.values().some((existing) => existing.email === account.email)) throw new EmailAlreadyRegistered();
    this.table.insert(account.id, account, this.journal);
  }

  async findByEmail(email: string): Promise<Account | null> {
    return this.table.values().find((account) => account.email === email) ?? null;
  }
}

export class InMemoryApiKeyRepository implements ApiKeyRepository {
  constructor(
    private readonly table: Table<ApiKey>,
    private readonly journal: Journal | null,
  ) {}

  async add(key: ApiKey): Promise<void> {
    if (this.table.values().some((existing) => existing.digest === key.digest)) {
      throw new Error('Duplicate API key digest');
    }
    this.table.insert(key.id, key, this.journal);
  }

  async findByDigest(digest: string): Promise<ApiKey | null> {
    return this.table.values().find((key) => key.digest === digest) ?? null;
  }
}

export class InMemoryTravellerRepository implements TravellerRepository {
  constructor(
    private readonly table: Table<Traveller>,
    private readonly journal: Journal | null,
  ) {}

  async add(traveller: Traveller): Promise<void> {
    this.table.insert(traveller.accountId, traveller, this.journal);
  }

  async getForAccount(accountId: string): Promise<Traveller> {
    const traveller = this.table.get(accountId);
    if (!traveller) throw new Error(`Account '${accountId}' has no traveller`);
    return traveller;
  }

  async save(traveller: Traveller): Promise<void> {
    this.table.update(traveller.accountId, traveller, this.journal);
  }
}

export class InMemoryTimelineRepository implements TimelineRepository {
  constructor(
    private readonly table: Table<Timeline>,
    private readonly journal: Journal | null,
  ) {}

  async add(timeline: Timeline): Promise<void> {
    this.table.insert(ownedKey(timeline.accountId, timeline.id), timeline, this.journal);
  }

  async save(timeline: Timeline): Promise<void> {
    this.table.update(ownedKey(timeline.accountId, timeline.id), timeline, this.journal);
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
  const byTime = a.createdAt.getTime() - b.createdAt.getTime();
  if (byTime !== 0) return byTime;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

export class InMemoryAnchorRepository implements AnchorRepository {
  constructor(
    private readonly table: Table<Anchor>,
    private readonly journal: Journal | null,
  ) {}

  async add(anchor: Anchor): Promise<void> {
    this.table.insert(ownedKey(anchor.accountId, anchor.id), anchor, this.journal);
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

  async add(item: Item): Promise<void> {
    this.table.insert(ownedKey(item.accountId, item.id), item, this.journal);
  }

  async save(item: Item): Promise<void> {
    this.table.update(ownedKey(item.accountId, item.id), item, this.journal);
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

  async add(travel: Travel): Promise<void> {
    this.table.insert(ownedKey(travel.accountId, travel.id), travel, this.journal);
  }
}
