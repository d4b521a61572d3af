// One process serving the API: the whole service when WEB_CONCURRENCY is 1, or one worker of the
// cluster that cluster-primary.ts runs (then the primary announces the service and asks for the
// shutdown, and this process only serves). What it starts is wired in composition/; this file
// says in which order, and how the process stops.
import 'reflect-metadata';
import cluster from 'node:cluster';
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import {
  prepareChangeListening,
  startListeningForChanges,
  stopListeningForChanges,
} from './composition/change-listening';
import { checkConnectionBudget, checkPooler } from './composition/database-checks';
import { RecordedMessages, startJobQueue, stopJobQueue } from './composition/job-queue';
import { openProcessDatabase } from './composition/process-database';
import { createProcessLogger } from './composition/process-logger';
import { wireProcessMetrics } from './composition/process-metrics';
import { composeRequestHandling } from './composition/request-handling';
import { type Config, configWarnings, databaseServerUrl } from './config';
import { DatabaseAvailability } from './infrastructure/database/health/database-availability';
import type { OpenDatabase } from './infrastructure/database/open-database';
import { EmbeddedAnalysis } from './infrastructure/database/embedded/statistics/embedded-analysis';
import { loadServiceSecret } from './infrastructure/persistence/postgres/service-secrets';
import { PasswordWorkMetrics } from './infrastructure/metrics/password-work-metrics';
import { createPasswordPool } from './infrastructure/passwords/password-pool';
import { startTracing, tracingConfigured } from './infrastructure/telemetry/tracing';
import type { EventStreams } from './interfaces/http/event-stream/event-streams';
import { gracefulClose } from './interfaces/http/graceful-close';
import { createHttpServer, listenOn } from './interfaces/http/http-server';
import { createMetricsServer, listenForMetrics } from './interfaces/http/metrics-server';
import { isShutdownRequest, type WorkerMessage } from './cluster/messages';
import { ProcessResources, StartCancelled } from './process-resources';
import { StopSignals } from './stop-signals';

/**
 * Starts the process's resources in order (telemetry, database, listening connections, job queue,
 * HTTP listeners) and stops them in the reverse order at SIGTERM or SIGINT, or when one fails to start.
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

/** The process's resources, each started after the one before and stopped in the reverse order. */
async function startAll(config: Config, resources: ProcessResources): Promise<Started> {
  const worker = cluster.isWorker;
  const traced = tracingConfigured(process.env);
  const logger = createProcessLogger(config, traced);
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
  const metrics = wireProcessMetrics(config, tracing);
  const changes = prepareChangeListening(config);
  const recorded = new RecordedMessages(metrics.webhooks); // the database's notices, for the relay
  const database = await resources.start(
    'database',
    () => openProcessDatabase(config, { worker, availability, changes, tracer, metrics, recorded, logger }),
    (opened) => opened.close(),
  );
  metrics.database?.watchPool(database.pool);
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
    () => startListeningForChanges(changes, database, logger),
    () => stopListeningForChanges(changes),
  );
  // Its threads started now, so that the first sign-ups do not wait for one to load; closed after
  // the HTTP listener, once the requests in flight are done with them.
  const passwordMetrics = metrics.registry && new PasswordWorkMetrics(metrics.registry);
  const passwordPool = await resources.start(
    'password work threads',
    () => createPasswordPool({ ...config.passwordChecks, events: passwordMetrics, tracer, log: logger, warm: true }),
    (pool) => pool.close(),
  );
  passwordMetrics?.watch(passwordPool);
  const { app, eventStreams, container } = composeRequestHandling({
    ...{ config, worker, database, availability, changes, passwordPool, formSecret },
    ...{ tableAnalyses: analysis?.analysed, registry: metrics.registry, tracer, logger },
  });
  // Before the HTTP listener, whose writes make jobs in its tables; its jobs get the shutdown's grace.
  const queueParts = { database, container, logger, tracer, metrics: metrics.webhooks, recorded };
  const queueGrace = config.shutdownGraceMs;
  await resources.start('job queue', () => startJobQueue({ ...queueParts, graceMs: queueGrace }), stopJobQueue);
  const server = createHttpServer(app, httpTimeouts(config), logger);
  const connections = gracefulClose(server);
  await resources.start(
    'HTTP listener',
    () => listenOn(server, config.port, config.host),
    (_listening, reason) => stopAccepting(config, { connections, eventStreams }, reason),
  );
  const metricsServer =
    metrics.registry && !worker
      ? createMetricsServer(metrics.registry, (error) => logger.error({ err: error }, 'metrics failed'))
      : null;
  if (metricsServer)
    await resources.start(
      'metrics listener',
      () => listenForMetrics(metricsServer, config),
      () => metricsServer.close(),
    );
  return { logger, database, server, budget };
}

function httpTimeouts(config: Config): Parameters<typeof createHttpServer>[1] {
  return {
    requestMs: config.httpRequestTimeoutMs,
    headersMs: config.httpHeadersTimeoutMs,
    keepAliveMs: config.httpKeepAliveTimeoutMs,
  };
}

/**
 * Stops accepting, ends the event streams (their clients resume elsewhere), and lets in-flight
 * requests finish for at most the grace: a stuck client must not hold a deploy. See
 * docs/operations.md.
 */
async function stopAccepting(
  config: Config,
  { connections, eventStreams }: { connections: ReturnType<typeof gracefulClose>; eventStreams: EventStreams },
  reason: string,
): Promise<void> {
  const worker = cluster.isWorker;
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

function report(message: WorkerMessage): void {
  process.send?.(message);
}
