import type { Repositories } from '../../../core/ports/repositories';
import type { Db } from './db';
import { prismaSql, type SqlRunner } from './sql-runner';
import { PrismaAccountRepository } from './repositories/prisma-account-repository';
import { PrismaAnchorRepository } from './repositories/prisma-anchor-repository';
import { PrismaEventRepository } from './repositories/prisma-event-repository';
import { PrismaApiKeyRepository } from './repositories/prisma-api-key-repository';
import { PrismaLoginThrottleRepository } from './repositories/prisma-login-throttle-repository';
import { PrismaSessionRepository } from './repositories/prisma-session-repository';
import { PrismaItemRepository } from './repositories/prisma-item-repository';
import { PrismaTimelineRepository } from './repositories/prisma-timeline-repository';
import { PrismaTravelRepository } from './repositories/prisma-travel-repository';
import { PrismaTravellerRepository } from './repositories/prisma-traveller-repository';

/** The repositories on `db`; outside a transaction, `sql` may send the busiest reads straight on the pool. */
export function prismaRepositories(db: Db, sql: SqlRunner = prismaSql(db)): Repositories {
  return {
    accounts: new PrismaAccountRepository(db),
    apiKeys: new PrismaApiKeyRepository(db),
    sessions: new PrismaSessionRepository(db),
    loginThrottles: new PrismaLoginThrottleRepository(db),
    travellers: new PrismaTravellerRepository(db),
    timelines: new PrismaTimelineRepository(db, sql),
    anchors: new PrismaAnchorRepository(db),
    items: new PrismaItemRepository(db),
    travels: new PrismaTravelRepository(db),
    events: new PrismaEventRepository(db, sql),
  };
}
