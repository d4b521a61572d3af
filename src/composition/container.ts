import 'reflect-metadata';
import type { Tracer } from '@opentelemetry/api';
import { Container } from 'inversify';
import type { FailedAttempts } from '../core/ports/failed-attempts';
import type { SignInEvents } from '../core/ports/sign-in-events';
import { IdempotencyStore } from '../core/ports/idempotency-store';
import { StreamSlots } from '../core/ports/stream-slots';
import type { VerifiedKeyCache } from '../core/ports/verified-key-cache';
import type { WallClock } from '../core/ports/wall-clock';
import { AuthenticateApiKey } from '../core/use-cases/accounts/authenticate-api-key';
import { CreateAccount } from '../core/use-cases/accounts/create-account';
import { CreateApiKey } from '../core/use-cases/api-keys/create-api-key';
import { ListApiKeys } from '../core/use-cases/api-keys/list-api-keys';
import { RevokeApiKey } from '../core/use-cases/api-keys/revoke-api-key';
import { UpdateApiKey } from '../core/use-cases/api-keys/update-api-key';
import { RollApiKey } from '../core/use-cases/api-keys/roll-api-key';
import { ChangePassword } from '../core/use-cases/sessions/change-password';
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
import { WatchEvents } from '../core/use-cases/events/watch-events';
import { ManipulateEvent } from '../core/use-cases/events/manipulate-event';
import { RegisterItem } from '../core/use-cases/items/register-item';
import { CheckParadox } from '../core/use-cases/paradoxes/check-paradox';
import { MonitorParadox } from '../core/use-cases/paradoxes/monitor-paradox';
import { CreateTimeline } from '../core/use-cases/timelines/create-timeline';
import { GetTimeline } from '../core/use-cases/timelines/get-timeline';
import { ListTimelines } from '../core/use-cases/timelines/list-timelines';
import { CountInProcess } from '../core/use-cases/rate-limiting/count-in-process';
import { CountRequest } from '../core/use-cases/rate-limiting/count-request';
import { Travel } from '../core/use-cases/travels/travel';
import { TravelToMoment } from '../core/use-cases/travels/travel-to-moment';
import type { PrismaClient } from '../infrastructure/database/driver/generated/client';
import type { SqlRunner } from '../infrastructure/database/driver/sql-runner';
import { EventChangeSignals } from '../infrastructure/event-changes/event-change-signals';
import { PostgresEventFeed } from '../infrastructure/persistence/postgres/event-feed';
import { PostgresIdempotencyStore } from '../infrastructure/persistence/postgres/idempotency-store';
import { PostgresRateCounterStore } from '../infrastructure/persistence/postgres/rate-counter-store';
import { PostgresStreamSlots } from '../infrastructure/persistence/postgres/stream-slots';
import {
  PostgresTransactionBoundary,
  type RerunListener,
} from '../infrastructure/persistence/postgres/transaction-boundary';
import { KeyedRequests } from '../infrastructure/persistence/postgres/unit-of-work/keyed-requests';
import { LruVerifiedKeyCache } from '../infrastructure/api-key-cache/lru-verified-key-cache';
import { defaultPasswordPool, type PasswordPool } from '../infrastructure/passwords/password-pool';
import { PooledCommonPasswords } from '../infrastructure/passwords/pooled-common-passwords';
import type { ScryptCost } from '../infrastructure/passwords/scrypt-hashing';
import { RandomIdGenerator } from '../infrastructure/system/random-id-generator';
import { ScryptCredentialHasher } from '../infrastructure/system/scrypt-credential-hasher';
import { SystemWallClock } from '../infrastructure/system/system-wall-clock';
import { SIGN_INS_NOT_COUNTED } from '../infrastructure/metrics/sign-in-metrics';
import { DEFAULT_FAILED_API_KEYS, MemoryFailedAttempts } from '../infrastructure/throttling/memory-failed-attempts';
import { bindPort, coreBinder } from './bindings';
import { bindWebhookPorts, bindWebhookUseCases, type WebhookOptions } from './webhook-bindings';
import {
  commonPasswords,
  credentialHasher,
  eventFeed,
  failedApiKeys,
  foregroundWork,
  idGenerator,
  signInEvents,
  rateCounterStore,
  transactionBoundary,
  verifiedKeyCache,
  wallClock,
} from './tokens';

export interface ContainerOptions extends WebhookOptions {
  readonly prisma: PrismaClient;
  /** Statements on the pool Prisma's client shares (OpenDatabase.sql). */
  readonly sql: SqlRunner;
  /** Tests freeze or advance time through this; production uses the system clock. */
  readonly wallClock?: WallClock;
  /**
   * What a password hash costs: SHIPPED_SCRYPT_COST unless given. Tests that do not test hashing
   * make it cheaper (tests/support/http/test-app.ts): a hash as shipped is a sixth of a second of CPU.
   */
  readonly scryptCost?: ScryptCost;
  /**
   * Where hashing and the strength check run: the process's pool of password work, which its
   * owner closes. Default: one of the default size, whose idle threads never keep the process up.
   */
  readonly passwordPool?: PasswordPool;
  /**
   * API keys verified lately (prepareVerifiedKeyCaching in verified-key-cache.ts, which also makes
   * the database's changes reach it). Without one nothing is cached: every request reads its key.
   */
  readonly verifiedKeyCache?: VerifiedKeyCache;
  /** Told when an account's unit of work ran again because another writer of the account came first. */
  readonly onRerun?: RerunListener;
  /**
   * How event streams hear of changes (prepareEventChanges in event-changes.ts, which also makes
   * the database's notifications reach it). Without it no change can be heard: streams are refused.
   */
  readonly eventChanges?: EventChangeSignals;
  /**
   * Failed API keys counted per client address (API_KEY_FAILURES_PER_MINUTE, this process's share).
   * Default: the default limit, counted in this process.
   */
  readonly failedApiKeys?: FailedAttempts;
  /** Told of each attempt at a password (METRICS_PORT's counter); default: nothing counts them. */
  readonly signInEvents?: SignInEvents;
  /** Makes each use case's run a span (tracing on); without one, use cases run as they are. */
  readonly tracer?: Tracer;
}

/**
 * Where each port meets its adapter, and the use cases are built. Core classes are built by
 * factories here, so the core carries no decorators and no container types. What the process owns
 * and starts (the database, metrics, tracing, the password pool) is wired beside this file
 * (request-handling.ts and its neighbours), started in order by server.ts, and handed in.
 */
export function buildContainer(options: ContainerOptions): Container {
  const container = new Container({ defaultScope: 'Singleton' });
  const bindCore = coreBinder(container, options.tracer);
  const clock = options.wallClock ?? new SystemWallClock();

  const database = { prisma: options.prisma, sql: options.sql };
  // Shared by the boundary and the idempotency store: a keyed request's writes carry its kept answer.
  const keyed = new KeyedRequests(database.sql);
  const boundary = new PostgresTransactionBoundary(database, keyed, options.onRerun);
  bindPort(container, transactionBoundary, boundary);
  // The same queue of each account's units: a delivery for an account gives way to them.
  bindPort(container, foregroundWork, boundary);
  bindPort(container, wallClock, clock);
  bindPort(container, idGenerator, new RandomIdGenerator());
  const passwordPool = options.passwordPool ?? defaultPasswordPool();
  bindPort(container, credentialHasher, new ScryptCredentialHasher(passwordPool, options.scryptCost));
  bindPort(container, commonPasswords, new PooledCommonPasswords(passwordPool));
  bindPort(container, rateCounterStore, new PostgresRateCounterStore(database.prisma, database.sql));
  bindPort(container, verifiedKeyCache, options.verifiedKeyCache ?? new LruVerifiedKeyCache({ maxEntries: 0 }));
  const signals = options.eventChanges ?? new EventChangeSignals({ suspended: true });
  bindPort(container, eventFeed, new PostgresEventFeed(database.sql, signals));
  bindPort(container, failedApiKeys, options.failedApiKeys ?? new MemoryFailedAttempts(DEFAULT_FAILED_API_KEYS));
  bindPort(container, signInEvents, options.signInEvents ?? SIGN_INS_NOT_COUNTED);
  bindWebhookPorts(container, { ...database, clock }, options);
  // The port is an abstract class so that it is its own token: the HTTP edge resolves it without composition.
  const idempotency = new PostgresIdempotencyStore(database.prisma, database.sql, keyed, clock);
  container.bind(IdempotencyStore).toConstantValue(idempotency);
  container.bind(StreamSlots).toConstantValue(new PostgresStreamSlots(database.sql));

  bindCore(CreateAccount, transactionBoundary, credentialHasher, idGenerator, wallClock, commonPasswords);
  bindCore(AuthenticateApiKey, transactionBoundary, credentialHasher, wallClock, verifiedKeyCache, failedApiKeys);
  // The dashboard and the try-it console: sessions and the account's keys.
  bindCore(SignUp, CreateAccount, transactionBoundary, credentialHasher, idGenerator, wallClock);
  bindCore(LogIn, transactionBoundary, credentialHasher, idGenerator, wallClock, commonPasswords, signInEvents);
  bindCore(LogOut, transactionBoundary, credentialHasher, wallClock);
  bindCore(ChangePassword, transactionBoundary, credentialHasher, wallClock, commonPasswords, signInEvents);
  bindCore(ResolveSession, transactionBoundary, credentialHasher, wallClock);
  bindCore(OpenConsole, ResolveSession, transactionBoundary, credentialHasher, wallClock);
  bindCore(ListApiKeys, transactionBoundary, wallClock);
  bindCore(CreateApiKey, transactionBoundary, credentialHasher, idGenerator, wallClock);
  bindCore(RollApiKey, transactionBoundary, credentialHasher, idGenerator, wallClock);
  bindCore(RevokeApiKey, transactionBoundary, wallClock);
  bindCore(UpdateApiKey, transactionBoundary, wallClock);
  bindCore(CreateAnchor, transactionBoundary, idGenerator, wallClock);
  bindCore(CreateTimeline, transactionBoundary, idGenerator, wallClock);
  bindCore(GetTimeline, transactionBoundary, wallClock);
  bindCore(ListTimelines, transactionBoundary, wallClock);
  bindCore(Travel, transactionBoundary, idGenerator, wallClock);
  bindCore(RegisterItem, transactionBoundary, idGenerator, wallClock);
  bindCore(CheckParadox, transactionBoundary);
  bindCore(MonitorParadox, transactionBoundary, CheckParadox);
  bindCore(PauseTime, transactionBoundary, wallClock);
  bindCore(ResumeTime, transactionBoundary, wallClock);
  bindCore(ShiftTime, transactionBoundary, wallClock);
  bindCore(TravelToMoment, transactionBoundary, idGenerator, wallClock);
  bindCore(ListEvents, transactionBoundary);
  bindCore(WatchEvents, transactionBoundary, eventFeed);
  bindCore(ManipulateEvent, transactionBoundary, idGenerator, wallClock);
  bindCore(CountRequest, rateCounterStore, wallClock);
  bindWebhookUseCases(bindCore);
  // Without use-case spans: it answers from memory for requests that carry no key, and a span for
  // each would cost what its limit spares.
  container.bind(CountInProcess).toConstantValue(new CountInProcess(clock));
  return container;
}
