// One process serving the API: the whole service when WEB_CONCURRENCY is 1, or one worker of the
// cluster that cluster-primary.ts runs (then the primary announces the service and asks for the
// shutdown, and this process only serves).
import 'reflect-metadata';
import cluster from 'node:cluster';
import { pino, type Logger } from 'pino';
import { buildContainer } from './composition/container';
import { StreamSlots } from './core/ports/stream-slots';
import { onConnectAll, prepareEventChanges } from './composition/event-changes';
import { endStreamsOfChangedKeys, prepareVerifiedKeyCaching } from './composition/verified-key-cache';
import {
  apiKeyFailuresPerProcess,
  type Config,
  configWarnings,
  databaseServerUrl,
  rateLimitAnonymousPerProcess,
} from './config';
import { checkConnectionBudget, checkPooler } from './composition/database-checks';
import { DatabaseAvailability } from './infrastructure/database/health/database-availability';
import type { NotificationListener } from './infrastructure/database/driver/notification-listener';
import { announceMigration } from './infrastructure/database/migrations/migrate-database';
import { type OpenDatabase, openDatabase } from './infrastructure/database/open-database';
import { databaseFailureOf } from './infrastructure/database/driver/database-failures';
import { databaseReadiness } from './infrastructure/database/health/readiness';
import { EmbeddedAnalysis } from './infrastructure/database/embedded/statistics/embedded-analysis';
import { loadServiceSecret } from './infrastructure/persistence/postgres/service-secrets';
import { MemoryFailedAttempts } from './infrastructure/throttling/memory-failed-attempts';
import { CountInProcess } from './core/use-cases/rate-limiting/count-in-process';
import { ClusterAdmission } from './interfaces/http/admission/cluster-admission';
import { LocalAdmission } from './interfaces/http/admission/local-admission';
import { createApp } from './interfaces/http/app';
import { EventStreams } from './interfaces/http/event-stream/event-streams';
import { DeliverySpans } from './interfaces/http/event-stream/delivery-spans';
import { createHttpServer, listenOn } from './interfaces/http/http-server';
import { createMetricsServer, listenForMetrics } from './interfaces/http/metrics-server';
import { HttpMetrics } from './interfaces/http/middleware/http-metrics';
import { answerPrimary } from './infrastructure/metrics/cluster-metrics';
import { createMetricsRegistry } from './infrastructure/metrics/metrics-registry';
import { ServiceMetrics } from './infrastructure/metrics/service-metrics';
import { SignInMetrics } from './infrastructure/metrics/sign-in-metrics';
import { DatabaseMetrics } from './infrastructure/metrics/database-metrics';
import { countProcessedSpans } from './infrastructure/metrics/tracing-metrics';
import { keptTraceContext } from './infrastructure/telemetry/sampling';
import { PasswordWorkMetrics } from './infrastructure/metrics/password-work-metrics';
import { createPasswordPool } from './infrastructure/passwords/password-pool';
import { startTracing, traceIdsOfLogLine, tracingConfigured } from './infrastructure/telemetry/tracing';
import { gracefulClose } from './interfaces/http/graceful-close';
import { isShutdownRequest, type WorkerReport } from './worker-messages';
import { ProcessResources, StartCancelled } from './process-resources';
import { StopSignals } from './stop-signals';
import type { Server } from 'node:http';

/**
 * Starts the process's resources in order (telemetry, database, listening connections, HTTP
 * listeners) and stops them in the reverse order at SIGTERM or SIGINT, or when one fails to start.
 */
export async function serve(config: Config): Promise<void> {
  const resources = new ProcessResources();
  // Heard from the first moment: a Ctrl-C during the start stops what has started, cleanly.
  const signals = new StopSignals((signal, first) =>
    console.log(`${signal} heard while stopping on ${first}: the stop goes on`),
  );
  signals.whenStopped((signal) => resources.cancelStarts(signal));
  let started: Started;
  try {
    started = await startAll(config, resources);
  } catch (error) {
    const cancelled = error instanceof StartCancelled;
    await resources
      .stopAll(cancelled ? error.reason : 'start failed')
      .catch((stopError: unknown) => console.error(stopError));
    if (!cancelled) throw error;
    console.log(`${error.reason}: stopped during the start.`);
    process.exit(0);
  }
  stopOnSignal(resources, signals);
  // Said only once the stop is handled: a SIGTERM sent the moment a supervisor reads this line
  // must stop the service cleanly, not end it by the signal's default.
  if (!cluster.isWorker) announce(config, started);
}

interface Started {
  readonly logger: Logger;
  readonly database: OpenDatabase;
  readonly server: Server;
  readonly budget: string | undefined;
}

async function startAll(config: Config, resources: ProcessResources): Promise<Started> {
  const worker = cluster.isWorker;
  const traced = tracingConfigured(process.env);
  const logger = pino({ level: config.logLevel, ...(traced && { mixin: traceIdsOfLogLine }) }, requestLogDestination());
  // Before the database opens: its first statements are traced too. Stopped last, whatever the
  // database's close did, so that its spans leave too; bounded, and never the exit code.
  const tracing = traced
    ? await resources.start(
        'tracing',
        () => startTracing(process.env, logger),
        (started) => started.shutdown(),
      )
    : undefined;
  const tracer = tracing?.tracer;
  const availability = new DatabaseAvailability(logger);
  // A worker's primary checked the budget and the pooler and applied the migrations once, before forking.
  const databaseServer = databaseServerUrl(config);
  const budget = databaseServer && !worker ? await checkConnectionBudget(config, databaseServer) : undefined;
  if (!worker) await checkPooler(config);
  // The process's metrics when an operator scrapes them: this process's own listener, or its
  // primary's, which gathers every worker's (cluster-primary.ts). A worker answers the primary from
  // the start, before its database is open, so that a scrape does not wait for a worker starting.
  const registry = config.metricsPort === undefined ? undefined : createMetricsRegistry(workerSlot());
  if (registry && worker) answerPrimary(registry);
  const databaseMetrics = registry && new DatabaseMetrics(registry);
  if (registry && tracing) countProcessedSpans(registry, tracing);
  // Each process its own cache of verified keys; its pool's connections LISTEN for key changes.
  const keyCaching = prepareVerifiedKeyCaching({ maxEntries: config.apiKeyCacheSize });
  // And its event streams, told of changes by the database's notifications as the key cache is.
  const eventChanges = prepareEventChanges();
  // Behind a pooler a LISTEN would stay on whichever server connection ran it, and that connection
  // would hear notifications while no client holds it: only the dedicated connections listen.
  const pooled = config.databaseDirectUrl !== undefined;
  const database = await resources.start(
    'database',
    () =>
      openDatabase(
        { DATABASE_URL: config.databaseUrl, DATABASE_DIRECT_URL: config.databaseDirectUrl, DATA_DIR: config.dataDir },
        {
          migrate: !worker,
          poolSize: config.databasePoolSize,
          onConnect: pooled ? undefined : onConnectAll(keyCaching.onConnect, eventChanges.onConnect),
          preparedStatements: config.databasePreparedStatements,
          timeoutMs: config.databaseTimeoutMs,
          onAnswer: availability.answered,
          onMigrationApplied: announceMigration,
          telemetry: { tracer, times: databaseMetrics },
          log: logger,
        },
      ),
    (opened) => opened.close(),
  );
  databaseMetrics?.watchPool(database.pool);
  // PGlite never analyses its tables by itself: the service does, as they grow (stopped before the database).
  const analysis =
    database.mode === 'embedded'
      ? await resources.start(
          'refreshing the embedded database statistics',
          () => new EmbeddedAnalysis(database.sql, { log: logger, tracer }).started(),
          (started) => started.stop(),
        )
      : undefined;
  // Every process behind one proxy must sign forms alike: a configured secret, or the database's.
  const formSecret = config.csrfSecret ?? (await loadServiceSecret(database.prisma, 'csrf'));
  await resources.start(
    'listening for key and event changes',
    () => {
      logListenerOutages(keyCaching.listener, logger, {
        lost:
          'API key cache off, and revoked keys end their event streams only at their next lease renewal: ' +
          'the connection listening for key changes was lost; reconnecting',
        back: 'API key cache on again: listening for key changes',
      });
      logListenerOutages(eventChanges.listener, logger, {
        lost: 'Event streams ended and refused: the connection listening for event changes was lost; reconnecting',
        back: 'Event streams open again: listening for event changes',
      });
      keyCaching.start(database);
      eventChanges.start(database);
    },
    () => Promise.all([keyCaching.close(), eventChanges.close()]),
  );
  // Its threads started now, so that the first sign-ups do not wait for one to load; closed after
  // the HTTP listener, once the requests in flight are done with them.
  const passwordMetrics = registry && new PasswordWorkMetrics(registry);
  const passwordPool = await resources.start(
    'password work threads',
    () => createPasswordPool({ ...config.passwordChecks, events: passwordMetrics, tracer, warm: true }),
    (pool) => pool.close(),
  );
  passwordMetrics?.watch(passwordPool);
  let serviceMetrics: ServiceMetrics | undefined;
  const container = buildContainer({
    prisma: database.prisma,
    sql: database.sql,
    verifiedKeyCache: keyCaching.cache,
    eventChanges: eventChanges.signals,
    // Normal when several processes write one account at once; frequent ones are worth a look.
    onRerun: (accountId, reason) => {
      logger.debug({ account_id: accountId, reason }, 'unit of work ran again');
      serviceMetrics?.rerun(reason);
    },
    failedApiKeys: new MemoryFailedAttempts({ failures: apiKeyFailuresPerProcess(config), windowSeconds: 60 }),
    signInEvents: registry && new SignInMetrics(registry),
    passwordPool,
    tracer,
  });
  // The process's event streams: ended first when it stops.
  const eventStreams = new EventStreams(
    container.get(StreamSlots),
    config.eventStreams,
    tracer && new DeliverySpans(tracer, keptTraceContext),
  );
  endStreamsOfChangedKeys(keyCaching.listener, eventStreams);
  // A worker's requests are counted with its siblings' by the primary: one account's limit per instance.
  const admission = worker
    ? new ClusterAdmission(config.accountRequests)
    : new LocalAdmission(config.accountRequests, config.instanceWork);
  if (registry) {
    serviceMetrics = new ServiceMetrics(registry, {
      database: availability,
      keyCache: keyCaching.cache,
      eventStreams,
      turnWaits: admission.waits,
      countsInProcess: container.get(CountInProcess),
      tableAnalyses: analysis?.analysed,
      // A worker's requests are scheduled by its primary, which shows the instance's work.
      instanceWork:
        admission instanceof LocalAdmission ? { load: () => admission.load, limits: admission.share } : undefined,
    });
  }
  const app = createApp(container, {
    metrics: registry && new HttpMetrics(registry),
    tracer,
    trustProxy: config.trustProxy,
    formSecret,
    logger,
    readiness: databaseReadiness(database.prisma, database.trouble),
    databaseFailureOf,
    onUnavailable: availability.lost,
    onTimedOut: availability.timedOut,
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
  const server = createHttpServer(
    app,
    {
      requestMs: config.httpRequestTimeoutMs,
      headersMs: config.httpHeadersTimeoutMs,
      keepAliveMs: config.httpKeepAliveTimeoutMs,
    },
    logger,
  );
  const connections = gracefulClose(server);
  await resources.start(
    'HTTP listener',
    () => listenOn(server, config.port, config.host),
    // Stop accepting, end the event streams (their clients resume elsewhere), and let in-flight
    // requests finish for at most the grace: a stuck client must not hold a deploy. See
    // docs/operations.md.
    async (_listening, reason) => {
      const closed = connections.close(config.shutdownGraceMs);
      eventStreams.closeAll();
      if (worker) report({ type: 'stopped-accepting' });
      else
        console.log(
          `${reason}: no longer accepting connections; requests in flight get ${config.shutdownGraceMs} ms to finish.`,
        );
      const { cut } = await closed;
      if (cut)
        console.log(
          `Shutdown grace over: the connections still open were closed${worker ? ` (worker ${process.pid})` : ''}.`,
        );
    },
  );
  const metricsServer =
    registry && !worker
      ? createMetricsServer(registry, (error) => logger.error({ err: error }, 'metrics failed'))
      : null;
  if (metricsServer)
    await resources.start(
      'metrics listener',
      () => listenForMetrics(metricsServer, config),
      () => metricsServer.close(),
    );
  return { logger, database, server, budget };
}

/** At SIGTERM or SIGINT (or a worker's primary asking), stops every resource, then exits. */
function stopOnSignal(resources: ProcessResources, signals: StopSignals): void {
  // A worker hears of the stop from its primary, and may hear the signal itself too (Ctrl+C
  // reaches the whole process group): StopSignals stops it once.
  signals.whenStopped((signal) => {
    void resources.stopAll(signal).then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  });
  if (cluster.isWorker) {
    process.on('message', (message) => {
      if (isShutdownRequest(message)) signals.hear(message.signal);
    });
  }
}

function announce(config: Config, { logger, database, server, budget }: Started): void {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host === '0.0.0.0' ? 'localhost' : config.host;
  console.log(`Time Navigation Service listening on http://${host}:${port} (Node ${process.version})`);
  console.log(`Data: ${database.description}`);
  if (database.mode === 'embedded')
    console.log(
      'The embedded database is for trying the service and for development: it does not survive a power loss ' +
        '(docs/operations.md#power-loss). Set DATABASE_URL for data that must.',
    );
  if (budget) console.log(budget);
  for (const warning of configWarnings(config)) logger.warn(warning);
}

/** A cluster worker's slot (WORKER_SLOT, set by its primary; the same across restarts), else none. */
function workerSlot(): string | undefined {
  return cluster.isWorker ? process.env.WORKER_SLOT : undefined;
}

/** Linux's PIPE_BUF: a write of at most this many bytes to a pipe is never interleaved with another. */
const PIPE_BUF = 4096;

/**
 * Standard output, written in blocks of at least 2 KiB or every 250 ms, whichever comes first,
 * rather than each line on its own: fewer writes. Written from the event loop (pino's default),
 * not as jobs of the thread pool: with the writes on the pool, each scavenge of a listing under
 * load kept nearly three times as much alive, and the CPU per request of a read rose by a third
 * (docs/performance.md, "The request log"). A log reader that falls behind slows the service
 * rather than growing a buffer in its memory. A block is at most 4 KiB, the size a pipe takes
 * whole, so the blocks of worker processes sharing one pipe never cut into each other's lines.
 * What is left is written when the process exits, a crash included; a SIGKILL loses at most the
 * last 250 ms of lines.
 */
function requestLogDestination(): pino.DestinationStream {
  const destination = pino.destination({
    dest: 1,
    sync: true,
    minLength: 2048,
    maxWrite: PIPE_BUF,
    periodicFlush: 250,
  });
  // pino flushes an asynchronous destination when the process exits, not a synchronous one: the
  // last block is written here.
  process.once('exit', () => {
    try {
      destination.flushSync();
    } catch (error) {
      // As pino does on a broken pipe: the reader of standard output is gone, nothing can be written.
      if ((error as NodeJS.ErrnoException).code !== 'EPIPE') throw error;
    }
  });
  return destination;
}

/**
 * A lost listening connection means every request reads its key again, and event streams end and
 * are refused: worth a warning, once per outage rather than per failed reconnection, and its end a note.
 */
function logListenerOutages(
  listener: NotificationListener,
  logger: Logger,
  lines: { readonly lost: string; readonly back: string },
): void {
  let lost = false;
  listener.on('lost', (error) => {
    if (!lost) logger.warn({ err: error }, lines.lost);
    lost = true;
  });
  listener.on('subscribed', () => {
    if (lost) logger.info(lines.back);
    lost = false;
  });
}

function report(message: WorkerReport): void {
  process.send?.(message);
}
