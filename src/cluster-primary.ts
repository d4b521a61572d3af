// WEB_CONCURRENCY > 1: this process serves nothing itself. It migrates the database once, forks the
// workers (each runs server.ts with its own connection pool) that share one listening socket,
// replaces a worker that dies, and stops them all on SIGTERM/SIGINT. See docs/operations.md.
import cluster, { type Worker } from 'node:cluster';
import type { Server } from 'node:http';
import { pino, type Logger } from 'pino';
import { type Config, configWarnings, databaseServerUrl } from './config';
import { checkConnectionBudget, checkPooler } from './composition/database-checks';
import { announceMigration, migrateDatabase } from './infrastructure/database/migrations/migrate-database';
import { describeExternalDatabase } from './infrastructure/database/driver/describe-server';
import { AdmissionServer } from './interfaces/http/admission/cluster-admission';
import { createMetricsServer, listenForMetrics } from './interfaces/http/metrics-server';
import { clusterMetrics } from './infrastructure/metrics/cluster-metrics';
import { instanceWorkGauges } from './infrastructure/metrics/service-metrics';
import { createMetricsRegistry } from './infrastructure/metrics/metrics-registry';
import { isStoppedAccepting, type ShutdownRequest } from './cluster/messages';
import { StopSignals } from './stop-signals';

/** The first restart of a crashed worker waits this long; each further crash soon after doubles it. */
const RESTART_DELAY_MS = 250;
const MAX_RESTART_DELAY_MS = 30_000;
/** A worker that served this long before it died starts its slot's back-off afresh. */
const STABLE_AFTER_MS = 60_000;

export async function runPrimary(config: Config): Promise<void> {
  const server = databaseServerUrl(config);
  if (!server || !config.databaseUrl)
    throw new Error('Worker processes need DATABASE_URL (readConfig refuses them without it).');
  // Written at once, in order with the lines printed beside it, and nothing left in a buffer at exit.
  const logger = pino({ level: config.logLevel }, pino.destination({ dest: 1, sync: true }));
  // Heard from the first moment, and every one of them, not only the first: npm forwards Ctrl-C's
  // SIGINT on top of the terminal's own, and a second must not end the primary while it stops. One
  // during the migrations (each in its transaction) stops the primary once they are applied.
  const signals = new StopSignals((signal, first) => logger.info({ signal, first }, 'signal heard while stopping'));
  // Once, before any worker exists: workers open the database without checking or migrating it.
  // Both on the server itself: behind a pooler the migrations' advisory lock would lock nothing.
  const budget = await checkConnectionBudget(config, server);
  await checkPooler(config);
  const { applied } = await migrateDatabase(server, { onApplied: announceMigration });
  logger.info({ applied }, 'migrations applied');
  if (signals.received) {
    console.log(`${signals.received}: stopped before the workers started.`);
    process.exit(0);
  }
  new ClusterPrimary(config, config.databaseUrl, budget, logger).start(signals);
}

interface Slot {
  readonly index: number;
  /** Crashes in a row of this slot's workers, each soon after its start: the back-off's exponent. */
  crashes: number;
}

class ClusterPrimary {
  /** The slot each live worker fills and when it was forked. */
  private readonly workers = new Map<Worker, { readonly slot: Slot; readonly forkedAt: number }>();
  /** Live workers that listen, hence handle a shutdown request. */
  private readonly serving = new Set<Worker>();
  private readonly restarts = new Set<NodeJS.Timeout>();
  private ready = false;
  /** Every worker's API requests in flight, per account (docs/decisions.md, "Requests in flight"). */
  private readonly admission: AdmissionServer;
  private metricsServer: Server | undefined;
  private stopping: { readonly signal: NodeJS.Signals; exitCode: number; stillAccepting: Set<Worker> } | undefined;

  constructor(
    private readonly config: Config,
    private readonly databaseUrl: string,
    /** The start-up line stating the connection budget. */
    private readonly budget: string,
    private readonly logger: Logger,
  ) {
    this.admission = new AdmissionServer(config.accountRequests, config.instanceWork, (id) => cluster.workers?.[id]);
  }

  start(signals: StopSignals): void {
    // The primary accepts each connection and hands it to the workers in turn: an even spread, and
    // a port 0 that every worker shares (the primary binds it once, at the first worker's request).
    cluster.schedulingPolicy = cluster.SCHED_RR;
    cluster.on('listening', (worker, address) => this.listening(worker, address.port));
    cluster.on('message', (worker, message) => {
      if (isStoppedAccepting(message)) this.stoppedAccepting(worker);
      else this.admission.heard(worker, message);
    });
    cluster.on('exit', (worker, code, signal) => this.exited(worker, code, signal));
    for (let index = 0; index < this.config.webConcurrency; index += 1) this.fork({ index, crashes: 0 });
    signals.whenStopped((signal) => this.stop(signal));
  }

  private fork(slot: Slot): void {
    // Its slot, for its metrics' `worker` label: a replacement takes the same series on.
    const worker = cluster.fork({ WORKER_SLOT: String(slot.index) });
    // A message to a worker whose channel just closed (a scrape's request, as it exits) fails as an
    // 'error' event: said, never the primary's end. The worker's exit is handled on its own.
    worker.on('error', (error: unknown) =>
      this.logger.warn({ err: error, worker_pid: worker.process.pid }, 'message to a worker failed'),
    );
    this.workers.set(worker, { slot, forkedAt: Date.now() });
    this.logger.info({ worker_pid: worker.process.pid, slot: slot.index }, 'worker started');
  }

  private listening(worker: Worker, port: number): void {
    this.serving.add(worker);
    this.logger.info(
      { worker_pid: worker.process.pid, slot: this.workers.get(worker)?.slot.index },
      'worker listening',
    );
    if (this.ready || this.stopping || this.serving.size < this.config.webConcurrency) return;
    // Every worker listens: the service is ready, and says so once (tests and the benchmark wait
    // for this line), as a single process does.
    this.ready = true;
    // The metrics listener first: a service that cannot serve it stops before it says it listens,
    // as a single process does.
    this.serveMetrics().then(
      () => this.announce(port),
      (error: unknown) => {
        console.error(`The metrics listener could not start: ${String(error)}`);
        this.stop('SIGTERM', 1);
      },
    );
  }

  private announce(port: number): void {
    const host = this.config.host === '0.0.0.0' ? 'localhost' : this.config.host;
    const pids = [...this.serving].map((each) => each.process.pid).join(', ');
    console.log(`Time Navigation Service listening on http://${host}:${port}`);
    console.log(`Data: ${describeExternalDatabase(this.databaseUrl)}`);
    console.log(
      `Workers: ${this.config.webConcurrency} processes (pids ${pids}), each with up ` +
        `to ${this.config.databasePoolSize} database connections.`,
    );
    console.log(this.budget);
    for (const warning of configWarnings(this.config)) this.logger.warn(warning);
  }

  /** METRICS_PORT, when set: one scrape answers every worker's metrics, each labelled with its slot. */
  private async serveMetrics(): Promise<void> {
    if (this.config.metricsPort === undefined) return;
    const workers = () => Object.values(cluster.workers ?? {}).filter((each) => each !== undefined);
    // Its own process too: the primary forks, restarts and holds every connection's first moments.
    const own = createMetricsRegistry('primary');
    instanceWorkGauges(own, { load: () => this.admission.load, limits: this.admission.share });
    const failed = (error: unknown) => this.logger.error({ err: error }, 'metrics failed');
    this.metricsServer = createMetricsServer(clusterMetrics(workers, own, failed), failed);
    await listenForMetrics(this.metricsServer, this.config);
  }

  private exited(worker: Worker, code: number | null, signal: string | null): void {
    const started = this.workers.get(worker);
    if (!started) return; // every worker is forked through fork(), which records it
    const { slot, forkedAt } = started;
    this.admission.exited(worker.id);
    this.workers.delete(worker);
    this.serving.delete(worker);
    const how = { worker_pid: worker.process.pid, slot: slot.index, code, signal };
    if (this.stopping) {
      // A worker that could not close cleanly (its pool, say) has said why; the exit code says it too.
      if (code !== null && code !== 0) this.stopping.exitCode = 1;
      this.logger.info(how, 'worker stopped');
      this.stoppedAccepting(worker);
      if (this.workers.size === 0) this.finish();
      return;
    }
    if (!this.ready) {
      // A worker that cannot start (the port is taken, say) will not start on a retry either: fail
      // like a single process would, rather than announce a service that is not there.
      this.logger.fatal(how, 'worker failed to start');
      console.error(
        'A worker process stopped before the service was ready ' +
          `(${code === null ? `signal ${signal}` : `exit code ${code}`}); stopping.`,
      );
      this.stop('SIGTERM', 1);
      return;
    }
    if (Date.now() - forkedAt >= STABLE_AFTER_MS) slot.crashes = 0;
    const delay = Math.min(MAX_RESTART_DELAY_MS, RESTART_DELAY_MS * 2 ** slot.crashes);
    slot.crashes += 1;
    this.logger.error({ ...how, restart_in_ms: delay }, 'worker exited unexpectedly; restarting it');
    const timer = setTimeout(() => {
      this.restarts.delete(timer);
      this.fork(slot);
    }, delay);
    this.restarts.add(timer);
  }

  /**
   * Asks every worker to stop as on `signal` (each drains its own requests in flight within
   * SHUTDOWN_GRACE_MS and closes its pool), restarts none, and exits once they all have.
   */
  private stop(signal: NodeJS.Signals, exitCode = 0): void {
    if (this.stopping) return;
    this.stopping = { signal, exitCode, stillAccepting: new Set(this.serving) };
    this.metricsServer?.close();
    for (const timer of this.restarts) clearTimeout(timer);
    this.restarts.clear();
    this.logger.info({ signal, workers: this.workers.size }, 'stopping workers');
    if (this.workers.size === 0) {
      this.finish();
      return;
    }
    const request: ShutdownRequest = { type: 'shutdown', signal };
    for (const worker of this.workers.keys()) {
      // A worker that serves drains what it has in flight. One still starting has nothing in
      // flight, and no handler for a request yet: a plain signal ends it. The callback takes the
      // failure to send to a worker that has just died; its 'exit' follows.
      if (this.serving.has(worker)) worker.send(request, undefined, () => undefined);
      else worker.process.kill('SIGTERM');
    }
  }

  /** Once every worker has closed its listener, no new connection is accepted: say so, once. */
  private stoppedAccepting(worker: Worker): void {
    const stopping = this.stopping;
    if (!stopping || stopping.stillAccepting.size === 0) return;
    stopping.stillAccepting.delete(worker);
    if (stopping.stillAccepting.size > 0) return;
    console.log(
      `${stopping.signal}: no longer accepting connections; ` +
        `requests in flight get ${this.config.shutdownGraceMs} ms to finish in each worker.`,
    );
  }

  private finish(): void {
    const exitCode = this.stopping?.exitCode ?? 0;
    this.logger.info({ exit_code: exitCode }, 'workers stopped');
    process.exit(exitCode);
  }
}
