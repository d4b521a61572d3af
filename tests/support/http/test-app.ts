import 'reflect-metadata';
import type { Logger } from 'pino';
import type { Tracer } from '@opentelemetry/api';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import type { Express } from 'express';
import type { Container } from 'inversify';
import request from 'supertest';
import {
  type AdmissionLimits,
  DEFAULT_ADMISSION_LIMITS,
} from '../../../src/interfaces/http/admission/account-admission';
import { DEFAULT_FAIR_SHARE, type FairShareLimits } from '../../../src/interfaces/http/admission/fair-share';
import { LocalAdmission } from '../../../src/interfaces/http/admission/local-admission';
import type { LoopRoom } from '../../../src/interfaces/http/admission/loop-room';
import type { HttpMetrics } from '../../../src/interfaces/http/middleware/http-metrics';
import { buildContainer } from '../../../src/composition/container';
import { StreamSlots } from '../../../src/core/ports/stream-slots';
import { type EventChanges, onConnectAll, prepareEventChanges } from '../../../src/composition/event-changes';
import {
  endStreamsOfChangedKeys,
  prepareVerifiedKeyCaching,
  type VerifiedKeyCaching,
} from '../../../src/composition/verified-key-cache';
import { DEFAULT_API_KEY_CACHE_SIZE } from '../../../src/settings';
import type { NotificationListenerOptions } from '../../../src/infrastructure/database/driver/notification-listener';
import type { PrismaClient } from '../../../src/infrastructure/database/driver/generated/client';
import type { SqlRunner } from '../../../src/infrastructure/database/driver/sql-runner';
import { databaseFailureOf } from '../../../src/infrastructure/database/driver/database-failures';
import { MemoryFailedAttempts } from '../../../src/infrastructure/throttling/memory-failed-attempts';
import { databaseReadiness } from '../../../src/infrastructure/database/health/readiness';
import { type AppOptions, createApp } from '../../../src/interfaces/http/app';
import type { ScryptCost } from '../../../src/infrastructure/passwords/scrypt-hashing';
import {
  DEFAULT_PASSWORD_CHECKS_QUEUED,
  PasswordPool,
  type PasswordWorkEvents,
} from '../../../src/infrastructure/passwords/password-pool';
import { PasswordThreads, type TaskThreads } from '../../../src/infrastructure/passwords/password-threads';
import { type EventStreamLimits, EventStreams } from '../../../src/interfaces/http/event-stream/event-streams';
import { ShiftableWallClock } from '../shiftable-wall-clock';
import type { WebhookDestinations } from '../../../src/core/ports/webhook-destinations';
import { ResolvedWebhookDestinations } from '../../../src/infrastructure/webhook-delivery/resolved-destinations';
import { resolverTable } from '../webhook-delivery/resolver-table';
import { connectToTestDatabase, provisionTestDatabase, type TestDatabase } from '../test-database';

export interface TestAccount {
  readonly id: string;
  readonly email: string;
  readonly apiKey: string;
  /** `Authorization` header value for this account. */
  readonly auth: string;
}

export interface TestApp {
  readonly app: Express;
  /** Its container, for a job queue of the same process to run its use cases (startJobQueue). */
  readonly container: Container;
  readonly prisma: PrismaClient;
  readonly sql: SqlRunner;
  /** The test database, for a second service process to share. */
  readonly connectionString: string;
  readonly mode: TestDatabase['mode'];
  /** The verified-key cache, wired as the service wires it: its stats, and its listener's events. */
  readonly keyCaching: VerifiedKeyCaching;
  /** How its event streams hear of changes, wired as the service wires it. */
  readonly eventChanges: EventChanges;
  /** Its open event streams (closeAll: as the service stopping). */
  readonly eventStreams: EventStreams;
  readonly clock: ShiftableWallClock;
  /** The admission gate, when the options set its limits (accountRequests, instanceWork, loopRoom). */
  readonly admission: LocalAdmission | undefined;
  /** Where its password work runs: a pool of its own, closed with the app. */
  readonly passwordPool: PasswordPool;
  signUp(): Promise<TestAccount>;
  /** The internal errors the app logged so far, taken: a test that provokes one asserts on it. */
  takeLoggedErrors(): unknown[];
  close(): Promise<void>;
}

let accounts = 0;

export interface TestAppOptions {
  /** Express 'trust proxy', as TRUST_PROXY sets it in the service. */
  readonly trustProxy?: boolean | number | string;
  /** Request log lines go here when given (as the service's go to stdout). */
  readonly logger?: Logger;
  /**
   * Rate limits, as RATE_LIMIT_PER_SECOND, RATE_LIMIT_ACCOUNTS_PER_MINUTE and
   * RATE_LIMIT_ANONYMOUS_PER_MINUTE set them; off unless given.
   */
  readonly rateLimit?: AppOptions['rateLimit'];
  /** Another app's database to share, as a second service process would (with its own pool and cache). */
  readonly sharing?: Pick<TestApp, 'connectionString' | 'mode'>;
  /** How the listeners of key and event changes reconnect (tests hold them). */
  readonly keyChanges?: NotificationListenerOptions;
  /** Event streams' limits and heartbeat; the service's defaults otherwise. */
  readonly eventStreams?: EventStreamLimits;
  /** MiB of answers an account's Idempotency-Keys keep per hour, as IDEMPOTENCY_KEPT_MIB_PER_HOUR sets it. */
  readonly keptAnswersMibPerHour?: number;
  /** Keyed requests an account may make per hour, as IDEMPOTENCY_KEYS_PER_HOUR sets it. */
  readonly keptKeysPerHour?: number;
  /** An account's requests running at once and waiting, as ACCOUNT_REQUESTS_RUNNING and _QUEUED set them. */
  readonly accountRequests?: AdmissionLimits;
  /** The instance's work at once and waiting, as INSTANCE_WORK_RUNNING and INSTANCE_REQUESTS_QUEUED set them. */
  readonly instanceWork?: FairShareLimits;
  /** Room on the event loop for heavier requests (a fake loop's, to hold them at will). */
  readonly loopRoom?: LoopRoom;
  /** The HTTP server metrics, as METRICS_PORT turns them on. */
  readonly metrics?: HttpMetrics;
  /** Unknown, revoked or expired API keys per client address a minute, as API_KEY_FAILURES_PER_MINUTE sets it. */
  readonly apiKeyFailuresPerMinute?: number;
  /** What a password hash costs: QUICK_SCRYPT_COST unless a test checks the service's own (SHIPPED_SCRYPT_COST). */
  readonly scryptCost?: ScryptCost;
  /** Traces each request, as OTEL_* settings turn tracing on. */
  readonly tracer?: Tracer;
  /**
   * The password work's pool: its threads (one worker thread unless given; tests may hold them),
   * the work that may wait, as PASSWORD_CHECKS_QUEUED sets it, and who hears of its work (the metrics).
   */
  readonly passwordChecks?: {
    readonly threads?: TaskThreads;
    readonly queued?: number;
    readonly events?: PasswordWorkEvents;
  };
  /** WEBHOOK_ALLOW_PRIVATE_URLS: `http` endpoints and private addresses; off unless given, as in the service. */
  readonly webhookAllowPrivateUrls?: boolean;
  /**
   * Where endpoints' URLs may lead: unless given, the service's own check, its names resolved by
   * TEST_HOSTS, as the tests have no outside DNS.
   */
  readonly webhookDestinations?: WebhookDestinations;
  /** WEBHOOK_RETRY_SCHEDULE: the waits before each retry, in seconds. */
  readonly webhookRetrySchedule?: readonly number[];
}

/**
 * The scheme and code of the service's hashing at a 64th of its cost. As shipped, a hash is a sixth
 * of a second of CPU; the suites sign up some 400 accounts, and would spend a minute on it.
 */
export const QUICK_SCRYPT_COST: ScryptCost = { N: 2 ** 10, r: 8, p: 1 };

/**
 * The names the HTTP suites' webhook endpoints use, as DNS would answer them: a public address, and
 * a name that leads to loopback. Any other name resolves to none.
 */
export const TEST_HOSTS: Record<string, readonly string[]> = {
  'example.com': ['93.184.215.14'],
  'loopback.example.com': ['127.0.0.1'],
};

/** How long an app may take to start listening for key changes before the test gives up. */
const SUBSCRIBE_TIMEOUT_MS = 10_000;

/** The real app over its own fresh database; one per test file. */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const keyCaching = prepareVerifiedKeyCaching({ maxEntries: DEFAULT_API_KEY_CACHE_SIZE, ...options.keyChanges });
  const eventChanges = prepareEventChanges(options.keyChanges);
  const stopListening = () => Promise.all([keyCaching.close(), eventChanges.close()]);
  const pool = { onConnect: onConnectAll(keyCaching.onConnect, eventChanges.onConnect) };
  const database = options.sharing ? connectToTestDatabase(options.sharing, pool) : await provisionTestDatabase(pool);
  // As the service, but the test waits until both listen, so that the cache is used from the first
  // request and streams open.
  const external = database.mode === 'external';
  const subscribed = Promise.all(
    [keyCaching.listener, eventChanges.listener].map((listener) =>
      external
        ? once(listener, 'subscribed', { signal: AbortSignal.timeout(SUBSCRIBE_TIMEOUT_MS) })
        : Promise.resolve(),
    ),
  );
  const server = { mode: database.mode, directConnectionString: database.connectionString };
  keyCaching.start(server);
  eventChanges.start(server);
  try {
    await subscribed;
  } catch (error) {
    await stopListening();
    await database.close();
    throw error;
  }

  const clock = new ShiftableWallClock();
  const errors: unknown[] = [];
  const passwordPool = new PasswordPool(options.passwordChecks?.threads ?? new PasswordThreads(1), {
    queued: options.passwordChecks?.queued ?? DEFAULT_PASSWORD_CHECKS_QUEUED,
    events: options.passwordChecks?.events,
    tracer: options.tracer,
  });
  const container = buildContainer({
    prisma: database.prisma,
    sql: database.sql,
    wallClock: clock,
    scryptCost: options.scryptCost ?? QUICK_SCRYPT_COST,
    passwordPool,
    verifiedKeyCache: keyCaching.cache,
    eventChanges: eventChanges.signals,
    failedApiKeys:
      options.apiKeyFailuresPerMinute === undefined
        ? undefined
        : new MemoryFailedAttempts({ failures: options.apiKeyFailuresPerMinute, windowSeconds: 60 }),
    webhookAllowPrivateUrls: options.webhookAllowPrivateUrls,
    webhookDestinations:
      options.webhookDestinations ??
      new ResolvedWebhookDestinations(options.webhookAllowPrivateUrls ?? false, resolverTable(TEST_HOSTS)),
    webhookRetrySchedule: options.webhookRetrySchedule,
  });
  const eventStreams = new EventStreams(container.get(StreamSlots), options.eventStreams);
  endStreamsOfChangedKeys(keyCaching.listener, eventStreams);
  const admission =
    options.accountRequests || options.instanceWork || options.loopRoom
      ? new LocalAdmission(
          options.accountRequests ?? DEFAULT_ADMISSION_LIMITS,
          options.instanceWork ?? DEFAULT_FAIR_SHARE,
          options.loopRoom,
        )
      : undefined;
  const app = createApp(container, {
    logError: (error) => errors.push(error),
    trustProxy: options.trustProxy ?? false,
    formSecret: randomBytes(32).toString('base64url'),
    logger: options.logger,
    readiness: databaseReadiness(database.prisma),
    databaseFailureOf,
    rateLimit: options.rateLimit,
    keptAnswersMibPerHour: options.keptAnswersMibPerHour,
    keptKeysPerHour: options.keptKeysPerHour,
    admission,
    metrics: options.metrics,
    tracer: options.tracer,
    eventStreams,
  });
  return {
    app,
    container,
    prisma: database.prisma,
    sql: database.sql,
    connectionString: database.connectionString,
    mode: database.mode,
    keyCaching,
    eventChanges,
    eventStreams,
    clock,
    admission,
    passwordPool,
    async signUp() {
      const email = `traveller-${process.pid}-${++accounts}-${Date.now()}@example.com`;
      const response = await request(app).post('/v1/accounts').send({ email, password: 'correct horse battery' });
      if (response.status !== 201)
        throw new Error(`sign-up failed: ${response.status} ${JSON.stringify(response.body)}`);
      return { id: response.body.id, email, apiKey: response.body.api_key, auth: `Bearer ${response.body.api_key}` };
    },
    takeLoggedErrors() {
      return errors.splice(0);
    },
    async close() {
      // The streams and listening connections first: the database's close may drop the database under them.
      eventStreams.closeAll();
      await stopListening();
      await passwordPool.close();
      await database.close();
      // A 500 in any test of the file is a defect even when the test did not look at it.
      if (errors.length > 0) throw new Error(`the app logged ${errors.length} internal error(s): ${String(errors[0])}`);
    },
  };
}
