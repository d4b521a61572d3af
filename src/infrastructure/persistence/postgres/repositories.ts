import type { Repositories, TravellerRepository } from '../../../core/ports/repositories';
import { readsAsking } from '../../../core/ports/repository-reads';
import type { PrismaClient } from '../prisma/generated/client';
import type { SqlRunner } from './sql-runner';
import { PostgresAccountRepository } from './repositories/account-repository';
import { PostgresAnchorRepository } from './repositories/anchor-repository';
import { PostgresApiKeyRepository } from './repositories/api-key-repository';
import { PostgresEventRepository } from './repositories/event-repository';
import { PostgresItemRepository } from './repositories/item-repository';
import { PostgresSessionRepository } from './repositories/session-repository';
import { PostgresTimelineRepository } from './repositories/timeline-repository';
import { PostgresTravelRepository } from './repositories/travel-repository';
import { PostgresTravellerRepository } from './repositories/traveller-repository';
import type { AccountUnit } from './unit-of-work/account-unit';
import { ImmediateWrites, type Writes } from './unit-of-work/writes';

/** Where the repositories read (Prisma's client, or the SqlRunner for the statements it cannot express). */
export interface Database {
  readonly prisma: PrismaClient;
  readonly sql: SqlRunner;
}

/** The repositories outside any unit of work: each read and each write a statement of its own. */
export function plainRepositories(db: Database): Repositories {
  const writes = new ImmediateWrites(db.sql);
  return repositoriesOn(db, writes, new PostgresTravellerRepository(db.sql, writes));
}

/**
 * A unit's repositories: its writes collected for its one statement, its traveller its own, and
 * each read first asks the unit, which refuses a read after its writes (it would not see them).
 */
export function unitRepositories(db: Database, unit: AccountUnit): Repositories {
  return readsAsking(repositoriesOn(db, unit, unit.travellers()), () => unit.beforeRead());
}

function repositoriesOn(db: Database, writes: Writes, travellers: TravellerRepository): Repositories {
  const { prisma, sql } = db;
  return {
    accounts: new PostgresAccountRepository(prisma, writes),
    apiKeys: new PostgresApiKeyRepository(prisma, writes),
    sessions: new PostgresSessionRepository(prisma, writes),
    travellers,
    timelines: new PostgresTimelineRepository(prisma, sql, writes),
    anchors: new PostgresAnchorRepository(prisma, writes),
    items: new PostgresItemRepository(prisma, writes),
    travels: new PostgresTravelRepository(writes),
    events: new PostgresEventRepository(prisma, sql, writes),
  };
}
