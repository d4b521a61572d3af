import 'reflect-metadata';
import { Container } from 'inversify';
import type { CommonPasswords } from '../core/ports/common-passwords';
import type { CredentialHasher } from '../core/ports/credential-hasher';
import { IdempotencyStore } from '../core/ports/idempotency-store';
import type { IdGenerator } from '../core/ports/id-generator';
import type { RateCounterStore } from '../core/ports/rate-counter-store';
import type { TransactionBoundary } from '../core/ports/transaction-boundary';
import type { VerifiedKeyCache } from '../core/ports/verified-key-cache';
import type { WallClock } from '../core/ports/wall-clock';
import { AuthenticateApiKey } from '../core/use-cases/accounts/authenticate-api-key';
import { CreateAccount } from '../core/use-cases/accounts/create-account';
import { CreateApiKey } from '../core/use-cases/api-keys/create-api-key';
import { ListApiKeys } from '../core/use-cases/api-keys/list-api-keys';
import { RevokeApiKey } from '../core/use-cases/api-keys/revoke-api-key';
import { RollApiKey } from '../core/use-cases/api-keys/roll-api-key';
import { LogIn } from '../core/use-cases/sessions/log-in';
import { LogOut } from '../core/use-cases/sessions/log-out';
import { OpenConsole } from '../core/use-cases/sessions/open-console';
import { ResolveSession } from '../core/use-cases/sessions/resolve-session';
import { SignUp } from '../core/use-cases/sessions/sign-up';
import { CreateAnchor } from '../core/use-cases/anchors/create-anchor';
import { PauseTime } from '../core/use-cases/clock/pause-time';
import { ResumeTime } from '../core/use-cases/clock/resume-time';
import { ShiftTime } from '../core/use-cases/clock/shift-time';
import { ListEvents } from '../core/use-cases/events/list-events';
import { ManipulateEvent } from '../core/use-cases/events/manipulate-event';
import { RegisterItem } from '../core/use-cases/items/register-item';
import { CheckParadox } from '../core/use-cases/paradoxes/check-paradox';
import { MonitorParadox } from '../core/use-cases/paradoxes/monitor-paradox';
import { CreateTimeline } from '../core/use-cases/timelines/create-timeline';
import { GetTimeline } from '../core/use-cases/timelines/get-timeline';
import { ListTimelines } from '../core/use-cases/timelines/list-timelines';
import { CountRequest } from '../core/use-cases/rate-limiting/count-request';
import { Travel } from '../core/use-cases/travels/travel';
import { TravelToMoment } from '../core/use-cases/travels/travel-to-moment';
import type { PrismaClient } from '../infrastructure/persistence/prisma/generated/client';
import { PrismaRateCounterStore } from '../infrastructure/persistence/prisma/prisma-rate-counter-store';
import { PrismaIdempotencyStore } from '../infrastructure/persistence/prisma/prisma-idempotency-store';
import {
  type FallbackListener,
  PrismaTransactionBoundary,
} from '../infrastructure/persistence/prisma/prisma-transaction-boundary';
import { RequestTransactions } from '../infrastructure/persistence/prisma/request-transactions';
import type { SqlRunner } from '../infrastructure/persistence/prisma/sql-runner';
import { LruVerifiedKeyCache } from '../infrastructure/api-key-cache/lru-verified-key-cache';
import { ZxcvbnCommonPasswords } from '../infrastructure/passwords/zxcvbn-common-passwords';
import { RandomIdGenerator } from '../infrastructure/system/random-id-generator';
import { ScryptCredentialHasher } from '../infrastructure/system/scrypt-credential-hasher';
import { SystemWallClock } from '../infrastructure/system/system-wall-clock';
import { TOKENS } from './tokens';

export interface ContainerOptions {
  readonly prisma: PrismaClient;
  /** The busiest statements straight on Prisma's pool (OpenDatabase.sql). */
  readonly sql: SqlRunner;
  /** Tests freeze or advance time through this; production uses the system clock. */
  readonly wallClock?: WallClock;
  /**
   * API keys verified lately (prepareVerifiedKeyCaching in verified-key-cache.ts, which also makes
   * the database's changes reach it). Without one nothing is cached: every request reads its key.
   */
  readonly verifiedKeyCache?: VerifiedKeyCache;
  /** Told when an account's exclusive work, run optimistically, had to run again under its lock. */
  readonly onOptimisticFallback?: FallbackListener;
}

/**
 * The composition root: the one place that knows which adapter serves which port. Core classes
 * are built by factories here, so the core carries no decorators and no container types.
 */
export function buildContainer(options: ContainerOptions): Container {
  const container = new Container({ defaultScope: 'Singleton' });

  // Shared by the boundary and the idempotency store: a request's writes commit with its kept answer.
  const requests = new RequestTransactions(options.prisma);
  const boundary = new PrismaTransactionBoundary(options.prisma, requests, {
    sql: options.sql,
    onFallback: options.onOptimisticFallback,
  });
  container.bind<TransactionBoundary>(TOKENS.TransactionBoundary).toConstantValue(boundary);
  container.bind<WallClock>(TOKENS.WallClock).toConstantValue(options.wallClock ?? new SystemWallClock());
  container.bind<IdGenerator>(TOKENS.IdGenerator).toConstantValue(new RandomIdGenerator());
  container.bind<CredentialHasher>(TOKENS.CredentialHasher).toConstantValue(new ScryptCredentialHasher());
  container.bind<CommonPasswords>(TOKENS.CommonPasswords).toConstantValue(new ZxcvbnCommonPasswords());
  container
    .bind<RateCounterStore>(TOKENS.RateCounterStore)
    .toConstantValue(new PrismaRateCounterStore(options.prisma, options.sql));
  container
    .bind<VerifiedKeyCache>(TOKENS.VerifiedKeyCache)
    .toConstantValue(options.verifiedKeyCache ?? new LruVerifiedKeyCache({ maxEntries: 0 }));

  const { TransactionBoundary: tx, WallClock: clock, IdGenerator: ids, CredentialHasher: hasher } = TOKENS;
  // The port is an abstract class so that it is its own token: the HTTP edge resolves it without composition.
  container
    .bind(IdempotencyStore)
    .toResolvedValue((c: WallClock) => new PrismaIdempotencyStore(options.prisma, requests, c, options.sql), [clock]);
  container
    .bind(CreateAccount)
    .toResolvedValue(
      (t: TransactionBoundary, h: CredentialHasher, i: IdGenerator, c: WallClock, p: CommonPasswords) =>
        new CreateAccount(t, h, i, c, p),
      [tx, hasher, ids, clock, TOKENS.CommonPasswords],
    );
  container
    .bind(AuthenticateApiKey)
    .toResolvedValue(
      (t: TransactionBoundary, h: CredentialHasher, c: WallClock, k: VerifiedKeyCache) =>
        new AuthenticateApiKey(t, h, c, k),
      [tx, hasher, clock, TOKENS.VerifiedKeyCache],
    );
  // The dashboard and the try-it console: sessions and the account's keys.
  container
    .bind(SignUp)
    .toResolvedValue(
      (a: CreateAccount, t: TransactionBoundary, h: CredentialHasher, i: IdGenerator, c: WallClock) =>
        new SignUp(a, t, h, i, c),
      [CreateAccount, tx, hasher, ids, clock],
    );
  container
    .bind(LogIn)
    .toResolvedValue(
      (t: TransactionBoundary, h: CredentialHasher, i: IdGenerator, c: WallClock) => new LogIn(t, h, i, c),
      [tx, hasher, ids, clock],
    );
  container
    .bind(LogOut)
    .toResolvedValue(
      (t: TransactionBoundary, h: CredentialHasher, c: WallClock) => new LogOut(t, h, c),
      [tx, hasher, clock],
    );
  container
    .bind(ResolveSession)
    .toResolvedValue(
      (t: TransactionBoundary, h: CredentialHasher, c: WallClock) => new ResolveSession(t, h, c),
      [tx, hasher, clock],
    );
  container
    .bind(OpenConsole)
    .toResolvedValue(
      (r: ResolveSession, t: TransactionBoundary, h: CredentialHasher, c: WallClock) => new OpenConsole(r, t, h, c),
      [ResolveSession, tx, hasher, clock],
    );
  container
    .bind(ListApiKeys)
    .toResolvedValue((t: TransactionBoundary, c: WallClock) => new ListApiKeys(t, c), [tx, clock]);
  container
    .bind(CreateApiKey)
    .toResolvedValue(
      (t: TransactionBoundary, h: CredentialHasher, i: IdGenerator, c: WallClock) => new CreateApiKey(t, h, i, c),
      [tx, hasher, ids, clock],
    );
  container
    .bind(RollApiKey)
    .toResolvedValue(
      (t: TransactionBoundary, h: CredentialHasher, i: IdGenerator, c: WallClock) => new RollApiKey(t, h, i, c),
      [tx, hasher, ids, clock],
    );
  container
    .bind(RevokeApiKey)
    .toResolvedValue((t: TransactionBoundary, c: WallClock) => new RevokeApiKey(t, c), [tx, clock]);
  container
    .bind(CreateAnchor)
    .toResolvedValue(
      (t: TransactionBoundary, i: IdGenerator, c: WallClock) => new CreateAnchor(t, i, c),
      [tx, ids, clock],
    );
  container
    .bind(CreateTimeline)
    .toResolvedValue(
      (t: TransactionBoundary, i: IdGenerator, c: WallClock) => new CreateTimeline(t, i, c),
      [tx, ids, clock],
    );
  container
    .bind(GetTimeline)
    .toResolvedValue((t: TransactionBoundary, c: WallClock) => new GetTimeline(t, c), [tx, clock]);
  container
    .bind(ListTimelines)
    .toResolvedValue((t: TransactionBoundary, c: WallClock) => new ListTimelines(t, c), [tx, clock]);
  container
    .bind(Travel)
    .toResolvedValue((t: TransactionBoundary, i: IdGenerator, c: WallClock) => new Travel(t, i, c), [tx, ids, clock]);
  container
    .bind(RegisterItem)
    .toResolvedValue(
      (t: TransactionBoundary, i: IdGenerator, c: WallClock) => new RegisterItem(t, i, c),
      [tx, ids, clock],
    );
  container.bind(CheckParadox).toResolvedValue((t: TransactionBoundary) => new CheckParadox(t), [tx]);
  container
    .bind(MonitorParadox)
    .toResolvedValue((t: TransactionBoundary, c: CheckParadox) => new MonitorParadox(t, c), [tx, CheckParadox]);
  container.bind(PauseTime).toResolvedValue((t: TransactionBoundary, c: WallClock) => new PauseTime(t, c), [tx, clock]);
  container
    .bind(ResumeTime)
    .toResolvedValue((t: TransactionBoundary, c: WallClock) => new ResumeTime(t, c), [tx, clock]);
  container.bind(ShiftTime).toResolvedValue((t: TransactionBoundary, c: WallClock) => new ShiftTime(t, c), [tx, clock]);
  container
    .bind(TravelToMoment)
    .toResolvedValue(
      (t: TransactionBoundary, i: IdGenerator, c: WallClock) => new TravelToMoment(t, i, c),
      [tx, ids, clock],
    );
  container.bind(ListEvents).toResolvedValue((t: TransactionBoundary) => new ListEvents(t), [tx]);
  container
    .bind(ManipulateEvent)
    .toResolvedValue(
      (t: TransactionBoundary, i: IdGenerator, c: WallClock) => new ManipulateEvent(t, i, c),
      [tx, ids, clock],
    );
  container
    .bind(CountRequest)
    .toResolvedValue((r: RateCounterStore, c: WallClock) => new CountRequest(r, c), [TOKENS.RateCounterStore, clock]);
  return container;
}
