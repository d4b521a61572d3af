import type { ReadRepositories, Repositories, TravellerRepository } from '../../../core/ports/repositories';
import { onlyReads, REPOSITORY_READS } from '../../../core/ports/repository-reads';
import type { PrismaClient } from '../../database/driver/generated/client';
import type { SqlRunner } from '../../database/driver/sql-runner';
import { PostgresAccountRepository } from './repositories/account-repository';
import { PostgresAnchorRepository } from './repositories/anchor-repository';
import { PostgresApiKeyRepository } from './repositories/api-key-repository';
import { PostgresEventRepository } from './repositories/event-repository';
import { PostgresItemRepository } from './repositories/item-repository';
import { PostgresSessionRepository } from './repositories/session-repository';
import { PostgresTimelineRepository } from './repositories/timeline-repository';
import { PostgresTravelRepository } from './repositories/travel-repository';
import { PostgresTravellerReads } from './repositories/traveller-repository';
import { PostgresWebhookEndpointRepository } from './repositories/webhook-endpoint-repository';
import type { AccountUnit } from './unit-of-work/account-unit';
import { NO_WRITES, type Writes } from './unit-of-work/writes';

/** Where the repositories read (Prisma's client, or the SqlRunner for the statements it cannot express). */
export interface Database {
  readonly prisma: PrismaClient;
  readonly sql: SqlRunner;
}

/** The reads outside any unit of work, each a statement of its own; no write is within reach. */
export function readRepositories(db: Database): ReadRepositories {
  const { prisma, sql } = db;
  return onlyReads({
    accounts: new PostgresAccountRepository(prisma, NO_WRITES),
    apiKeys: new PostgresApiKeyRepository(prisma, NO_WRITES),
    sessions: new PostgresSessionRepository(prisma, NO_WRITES),
    travellers: new PostgresTravellerReads(sql),
    timelines: new PostgresTimelineRepository(prisma, sql, NO_WRITES),
    anchors: new PostgresAnchorRepository(prisma, NO_WRITES),
    items: new PostgresItemRepository(prisma, NO_WRITES),
    events: new PostgresEventRepository(prisma, sql, NO_WRITES),
    webhookEndpoints: new PostgresWebhookEndpointRepository(prisma, NO_WRITES),
  });
}

/**
 * The repositories writing through `writes` as they come, their reads as they are: what tests set
 * up their rows with (tests/support/plain-repositories.ts).
 */
export function repositoriesWriting(db: Database, writes: Writes, travellers: TravellerRepository): Repositories {
  return repositoriesOn(db, writes, travellers, PLAIN);
}

/**
 * A unit's repositories: its writes collected for its one statement, its traveller its own, and
 * each read first asks the unit, which refuses a read after its writes (it would not see them).
 */
export function unitRepositories(db: Database, unit: AccountUnit): Repositories {
  return repositoriesOn(db, unit, unit.travellers(), ASKING_FIRST);
}

function repositoriesOn(
  db: Database,
  writes: Writes,
  travellers: TravellerRepository,
  classes: typeof PLAIN,
): Repositories {
  const { prisma, sql } = db;
  return {
    accounts: new classes.accounts(prisma, writes),
    apiKeys: new classes.apiKeys(prisma, writes),
    sessions: new classes.sessions(prisma, writes),
    travellers,
    timelines: new classes.timelines(prisma, sql, writes),
    anchors: new classes.anchors(prisma, writes),
    items: new classes.items(prisma, writes),
    travels: new PostgresTravelRepository(writes),
    events: new classes.events(prisma, sql, writes),
    webhookEndpoints: new classes.webhookEndpoints(prisma, writes),
  };
}

const PLAIN = {
  accounts: PostgresAccountRepository,
  apiKeys: PostgresApiKeyRepository,
  sessions: PostgresSessionRepository,
  timelines: PostgresTimelineRepository,
  anchors: PostgresAnchorRepository,
  items: PostgresItemRepository,
  events: PostgresEventRepository,
  webhookEndpoints: PostgresWebhookEndpointRepository,
};

/**
 * The same classes, each read asking the repository's `writes` first (Writes.beforeRead), the reads
 * named once (REPOSITORY_READS). Made once, when this module loads: a unit makes its repositories
 * as it did, with no wrapper of its own to allocate.
 */
const ASKING_FIRST: typeof PLAIN = {
  accounts: askingFirst(PLAIN.accounts, REPOSITORY_READS.accounts),
  apiKeys: askingFirst(PLAIN.apiKeys, REPOSITORY_READS.apiKeys),
  sessions: askingFirst(PLAIN.sessions, REPOSITORY_READS.sessions),
  timelines: askingFirst(PLAIN.timelines, REPOSITORY_READS.timelines),
  anchors: askingFirst(PLAIN.anchors, REPOSITORY_READS.anchors),
  items: askingFirst(PLAIN.items, REPOSITORY_READS.items),
  events: askingFirst(PLAIN.events, REPOSITORY_READS.events),
  webhookEndpoints: askingFirst(PLAIN.webhookEndpoints, REPOSITORY_READS.webhookEndpoints),
};

// TypeScript's mixin pattern: a class can extend only a constructor of `any[]` arguments.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function askingFirst<C extends new (...args: any[]) => object>(Repository: C, reads: object): C {
  const Asking = class extends Repository {};
  for (const name of Object.keys(reads)) {
    const read = (Repository.prototype as Record<string, (...args: unknown[]) => Promise<unknown>>)[name];
    Object.defineProperty(Asking.prototype, name, {
      value(this: { readonly writes: Writes }, ...args: unknown[]): Promise<unknown> {
        try {
          this.writes.beforeRead();
        } catch (misuse) {
          return Promise.reject(misuse);
        }
        return read.apply(this, args);
      },
    });
  }
  return Asking;
}
