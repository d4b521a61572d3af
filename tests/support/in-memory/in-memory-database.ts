import type { Account, ApiKey } from '../../../src/core/domain/account';
import type { Anchor } from '../../../src/core/domain/anchor';
import type { Item } from '../../../src/core/domain/item';
import type { LoginCounter } from '../../../src/core/domain/login-throttle';
import type { Session } from '../../../src/core/domain/session';
import type { Timeline } from '../../../src/core/domain/timeline';
import type { EventManipulation, TimelineEvent } from '../../../src/core/domain/timeline-event';
import type { Travel } from '../../../src/core/domain/travel';
import type { Traveller } from '../../../src/core/domain/traveller';
import type { WebhookEndpoint } from '../../../src/core/domain/webhook-endpoint';
import type { Counters } from '../../../src/core/ports/counters';
import type { Repositories } from '../../../src/core/ports/repositories';
import { inMemoryCounters } from './counters';
import {
  InMemoryAccountRepository,
  InMemoryAnchorRepository,
  InMemoryApiKeyRepository,
  InMemoryEventRepository,
  InMemoryItemRepository,
  InMemorySessionRepository,
  InMemoryTimelineRepository,
  InMemoryTravelRepository,
  InMemoryTravellerRepository,
  ownedKey,
} from './repositories';
import { type Journal, Table } from './table';
import { InMemoryWebhookEndpointRepository } from './webhook-endpoint-repository';

/** Every stored row, copied out, for tests that compare the state before and after a request. */
export interface DatabaseContents {
  readonly accounts: readonly Account[];
  readonly apiKeys: readonly ApiKey[];
  readonly travellers: readonly Traveller[];
  readonly timelines: readonly Timeline[];
  readonly anchors: readonly Anchor[];
  readonly items: readonly Item[];
  readonly travels: readonly Travel[];
  readonly events: readonly TimelineEvent[];
  readonly manipulations: readonly EventManipulation[];
  readonly webhookEndpoints: readonly WebhookEndpoint[];
}

/** The tables behind every repository of `Repositories`. Stored domain objects are immutable. */
export class InMemoryDatabase {
  private readonly accounts = new Table<Account>();
  private readonly apiKeys = new Table<ApiKey>();
  private readonly sessions = new Table<Session>();
  private readonly loginCounters = new Table<LoginCounter>();
  private readonly travellers = new Table<Traveller>();
  private readonly timelines = new Table<Timeline>();
  private readonly anchors = new Table<Anchor>();
  private readonly items = new Table<Item>();
  private readonly travels = new Table<Travel>();
  private readonly events = new Table<TimelineEvent>();
  private readonly manipulations = new Table<EventManipulation>();
  private readonly webhookEndpoints = new Table<WebhookEndpoint>();
  private readonly keyChangeListeners: Array<(keyId: string) => void> = [];
  /** Each account's version, moved on by every unit of work that writes it (its traveller's, in PostgreSQL). */
  private readonly versions = new Map<string, number>();

  /**
   * Hears every committed change of a key's revocation or expiry, as the database's trigger and
   * NOTIFY announce them to each process's verified-key cache.
   */
  onApiKeyChange(listener: (keyId: string) => void): void {
    this.keyChangeListeners.push(listener);
  }

  /** Repositories whose writes are recorded in `journal` (null: outside any transaction). */
  repositories(journal: Journal | null = null): Repositories {
    const travellers = new InMemoryTravellerRepository(this.travellers, journal);
    const timelines = new InMemoryTimelineRepository(this.timelines, journal);
    return {
      accounts: new InMemoryAccountRepository(this.accounts, journal),
      apiKeys: new InMemoryApiKeyRepository(this.apiKeys, journal, (keyId) => {
        for (const listener of this.keyChangeListeners) listener(keyId);
      }),
      sessions: new InMemorySessionRepository(this.sessions, journal),
      travellers,
      timelines,
      anchors: new InMemoryAnchorRepository(this.anchors, journal),
      items: new InMemoryItemRepository(this.items, journal),
      travels: new InMemoryTravelRepository(this.travels, journal),
      events: new InMemoryEventRepository(this.events, this.manipulations, journal, { travellers, timelines }),
      webhookEndpoints: new InMemoryWebhookEndpointRepository(this.webhookEndpoints, journal),
    };
  }

  /** The account's version; null while it has no traveller. */
  versionOf(accountId: string): number | null {
    return this.travellers.has(accountId) ? (this.versions.get(accountId) ?? 0) : null;
  }

  /**
   * Applies a unit's journal, and the traveller it saved, if the account is still at the version
   * the unit started from (null: the unit opens the account, unguarded), moving it on.
   */
  applyUnit(unit: {
    readonly accountId: string;
    readonly version: number | null;
    readonly journal: Journal;
    readonly saved: Traveller | null;
    readonly missing: (what: string) => Error;
  }): 'applied' | 'conflict' {
    const { accountId, version, journal, saved } = unit;
    if (version !== null && this.versionOf(accountId) !== version) return 'conflict';
    // As PostgreSQL's guard, which exists only for a unit that started from a traveller.
    if (saved && version !== null) journal.stage((applying) => this.travellers.update(accountId, saved, applying));
    journal.commit(unit.missing);
    this.versions.set(accountId, (this.versions.get(accountId) ?? 0) + 1);
    return 'applied';
  }

  /** The counters, each change applied at once whatever transaction is under way. */
  counters(): Counters {
    return inMemoryCounters({ loginCounters: this.loginCounters, apiKeys: this.apiKeys });
  }

  contents(): DatabaseContents {
    return {
      accounts: this.accounts.values(),
      apiKeys: this.apiKeys.values(),
      travellers: this.travellers.values(),
      timelines: this.timelines.values(),
      anchors: this.anchors.values(),
      items: this.items.values(),
      travels: this.travels.values(),
      events: this.events.values(),
      manipulations: this.manipulations.values(),
      webhookEndpoints: this.webhookEndpoints.values(),
    };
  }

  // Direct lookups for assertions, bypassing the ports.

  traveller(accountId: string): Traveller | undefined {
    return this.travellers.get(accountId);
  }

  timeline(accountId: string, timelineId: string): Timeline | undefined {
    return this.timelines.get(ownedKey(accountId, timelineId));
  }

  item(accountId: string, itemId: string): Item | undefined {
    return this.items.get(ownedKey(accountId, itemId));
  }

  anchor(accountId: string, anchorId: string): Anchor | undefined {
    return this.anchors.get(ownedKey(accountId, anchorId));
  }

  travelsOf(accountId: string): Travel[] {
    return this.travels.values().filter((travel) => travel.accountId === accountId);
  }

  event(accountId: string, eventId: string): TimelineEvent | undefined {
    return this.events.get(ownedKey(accountId, eventId));
  }

  /** The account's events in the order they were recorded. */
  eventsOf(accountId: string): TimelineEvent[] {
    return this.events.values().filter((event) => event.accountId === accountId);
  }

  /** The account's event manipulations in the order they were applied. */
  manipulationsOf(accountId: string): EventManipulation[] {
    return this.manipulations.values().filter((manipulation) => manipulation.accountId === accountId);
  }

  webhookEndpoint(accountId: string, endpointId: string): WebhookEndpoint | undefined {
    return this.webhookEndpoints.get(ownedKey(accountId, endpointId));
  }

  webhookEndpointsOf(accountId: string): WebhookEndpoint[] {
    return this.webhookEndpoints.values().filter((endpoint) => endpoint.accountId === accountId);
  }

  apiKeysOf(accountId: string): ApiKey[] {
    return this.apiKeys.values().filter((key) => key.accountId === accountId);
  }

  apiKey(keyId: string): ApiKey | undefined {
    return this.apiKeys.get(keyId);
  }

  sessionsOf(accountId: string): Session[] {
    return this.sessions.values().filter((session) => session.accountId === accountId);
  }

  loginCounter(key: string): LoginCounter | undefined {
    return this.loginCounters.get(key);
  }
}
