import type { Tracer } from '@opentelemetry/api';
import type { Express } from 'express';
import type { Container } from 'inversify';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { apiKeyFailuresPerProcess, type Config, rateLimitAnonymousPerProcess } from '../config';
import { StreamSlots } from '../core/ports/stream-slots';
import { CountInProcess } from '../core/use-cases/rate-limiting/count-in-process';
import { databaseFailureOf } from '../infrastructure/database/driver/database-failures';
import type { DatabaseAvailability } from '../infrastructure/database/health/database-availability';
import { databaseReadiness } from '../infrastructure/database/health/readiness';
import type { OpenDatabase } from '../infrastructure/database/open-database';
import { ServiceMetrics } from '../infrastructure/metrics/service-metrics';
import { SignInMetrics } from '../infrastructure/metrics/sign-in-metrics';
import type { PasswordPool } from '../infrastructure/passwords/password-pool';
import type { RerunReason } from '../infrastructure/persistence/postgres/transaction-boundary';
import { keptTraceContext } from '../infrastructure/telemetry/sampling';
import { MemoryFailedAttempts } from '../infrastructure/throttling/memory-failed-attempts';
import { ClusterAdmission } from '../interfaces/http/admission/cluster-admission';
import { LocalAdmission } from '../interfaces/http/admission/local-admission';
import { LoopRoom } from '../interfaces/http/admission/loop-room';
import { createApp } from '../interfaces/http/app';
import { DeliverySpans } from '../interfaces/http/event-stream/delivery-spans';
import { EventStreams } from '../interfaces/http/event-stream/event-streams';
import { HttpMetrics } from '../interfaces/http/middleware/http-metrics';
import type { ChangeListening } from './change-listening';
import { buildContainer } from './container';
import { endStreamsOfChangedKeys } from './verified-key-cache';

/** What the process has started by the time it composes its requests' handling. */
export interface RequestHandlingParts {
  readonly config: Config;
  /** A cluster worker: its primary schedules its requests with its siblings'. */
  readonly worker: boolean;
  readonly database: OpenDatabase;
  readonly availability: DatabaseAvailability;
  readonly changes: ChangeListening;
  readonly passwordPool: PasswordPool;
  /** Every process behind one proxy must sign forms alike. */
  readonly formSecret: string;
  /** The embedded database's tables analysed, by table (none on a PostgreSQL server). */
  readonly tableAnalyses: ReadonlyMap<string, number> | undefined;
  /** This process's metrics, when METRICS_PORT is set. */
  readonly registry: Registry | undefined;
  readonly tracer: Tracer | undefined;
  readonly logger: Logger;
}

/**
 * The use cases wired to their adapters, the process's event streams and admission, its service
 * metrics, and the HTTP app over them: all a request goes through, ready for a listener.
 */
export function composeRequestHandling(parts: RequestHandlingParts): {
  readonly app: Express;
  readonly eventStreams: EventStreams;
  /** The use cases, for what else runs them (the job queue's workers). */
  readonly container: Container;
} {
  const { config, registry, tracer } = parts;
  let serviceMetrics: ServiceMetrics | undefined;
  const container = wireContainer(parts, (reason) => serviceMetrics?.rerun(reason));
  const eventStreams = wireEventStreams(container, parts);
  const admission = wireAdmission(config, parts.worker);
  if (registry) serviceMetrics = wireServiceMetrics(registry, container, eventStreams, admission, parts);
  const app = createApp(container, {
    metrics: registry && new HttpMetrics(registry),
    tracer,
    trustProxy: config.trustProxy,
    formSecret: parts.formSecret,
    logger: parts.logger,
    readiness: databaseReadiness(parts.database.prisma, parts.database.trouble),
    databaseFailureOf,
    onUnavailable: parts.availability.lost,
    onTimedOut: parts.availability.timedOut,
    rateLimit: {
      perAccountPerSecond: config.rateLimitPerSecond,
      accountsPerMinute: config.rateLimitAccountsPerMinute,
      anonymousPerMinute: rateLimitAnonymousPerProcess(config),
    },
    keptAnswersMibPerHour: config.idempotencyKeptMibPerHour,
    keptKeysPerHour: config.idempotencyKeysPerHour,
    eventStreams,
    admission,
  });
  return { app, eventStreams, container };
}

/** The use cases over the open database, this process's caches and pools, and its failed-attempt counts. */
function wireContainer(
  { config, database, changes, passwordPool, registry, tracer, logger }: RequestHandlingParts,
  counted: (reason: RerunReason) => void,
): Container {
  return buildContainer({
    prisma: database.prisma,
    sql: database.sql,
    verifiedKeyCache: changes.keyCaching.cache,
    eventChanges: changes.eventChanges.signals,
    // Normal when several processes write one account at once; frequent ones are worth a look.
    onRerun: (accountId, reason) => {
      logger.debug({ account_id: accountId, reason }, 'unit of work ran again');
      counted(reason);
    },
    failedApiKeys: new MemoryFailedAttempts({ failures: apiKeyFailuresPerProcess(config), windowSeconds: 60 }),
    signInEvents: registry && new SignInMetrics(registry),
    passwordPool,
    tracer,
    webhookAllowPrivateUrls: config.webhookAllowPrivateUrls,
    webhookRetrySchedule: config.webhookRetrySchedule,
  });
}

/** The process's event streams (ended first when it stops), those of a changed key ended at once. */
function wireEventStreams(container: Container, { config, tracer, changes }: RequestHandlingParts): EventStreams {
  const eventStreams = new EventStreams(
    container.get(StreamSlots),
    config.eventStreams,
    tracer && new DeliverySpans(tracer, keptTraceContext),
  );
  endStreamsOfChangedKeys(changes.keyCaching.listener, eventStreams);
  return eventStreams;
}

/** A worker's requests are counted with its siblings' by the primary: one account's limit per instance. */
function wireAdmission(config: Config, worker: boolean): ClusterAdmission | LocalAdmission {
  const room = new LoopRoom(config.heavyWorkLoopPercent / 100);
  return worker
    ? new ClusterAdmission(config.accountRequests, process, room)
    : new LocalAdmission(config.accountRequests, config.instanceWork, room);
}

function wireServiceMetrics(
  registry: Registry,
  container: Container,
  eventStreams: EventStreams,
  admission: ClusterAdmission | LocalAdmission,
  { availability, changes, tableAnalyses }: RequestHandlingParts,
): ServiceMetrics {
  return new ServiceMetrics(registry, {
    database: availability,
    keyCache: changes.keyCaching.cache,
    eventStreams,
    turnWaits: admission.waits,
    countsInProcess: container.get(CountInProcess),
    tableAnalyses,
    // A worker's requests are scheduled by its primary, which shows the instance's work.
    instanceWork:
      admission instanceof LocalAdmission ? { load: () => admission.load, limits: admission.share } : undefined,
  });
}
