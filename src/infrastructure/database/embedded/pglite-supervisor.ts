// Runs the embedded PostgreSQL on a thread of its own (pglite-thread.ts) and keeps it answering.
//
// The thread says it is alive every HEARTBEAT_MS while PGlite is between messages. Silence means
// PGlite is inside one message: for a moment when it runs a statement, for ever when it spins
// because its write-ahead log could not grow. The supervisor then ends the thread (a worker is
// ended even inside WebAssembly), and starts PGlite again on the same data, port and password, so
// that the pool's connections find it where they left it. Starting again is PostgreSQL's crash
// recovery: what was committed is replayed from the write-ahead log. On a full disk it waits for
// room for one more WAL segment first. Meanwhile requests are answered 503 (the database does not
// answer) and `trouble` says why, for /readyz. Decisions and figures: docs/operations.md.
import { statfs } from 'node:fs/promises';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { PgliteThreadData, ThreadReport, ThreadRequest } from './pglite-thread';

export const HEARTBEAT_MS = 250;
/** PGlite's write-ahead log grows a segment at a time. */
export const WAL_SEGMENT_BYTES = 16 * 1024 * 1024;
/** Silent this long with less than a WAL segment free: PGlite is spinning on a full disk. */
export const DISK_FULL_SILENCE_MS = 2_000;
/**
 * Silent this long whatever the disk: stuck. No statement of the service holds the database for more
 * than DATABASE_TIMEOUT_MS, and a migration's index build on a development database for seconds.
 */
export const STALL_MS = 60_000;
/** How long a stop waits for PGlite to close its files before ending the thread. */
const STOP_MS = 10_000;
const RESTART_DELAYS_MS = [1_000, 2_000, 5_000, 10_000, 30_000];

/** Why a thread silent for `silentMs` must be ended, or null while it may still be at work. */
export function stallOf(silentMs: number, freeBytes: number | null): string | null {
  if (freeBytes !== null && freeBytes < WAL_SEGMENT_BYTES && silentMs >= DISK_FULL_SILENCE_MS) {
    const needed = mebibytes(WAL_SEGMENT_BYTES);
    return `its disk is full (${mebibytes(freeBytes)} free; its write-ahead log needs ${needed} to grow)`;
  }
  if (silentMs >= STALL_MS) return `it has not answered for ${Math.round(silentMs / 1000)} s`;
  return null;
}

function mebibytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** Free bytes for an unprivileged writer on the file system holding `folder`. */
async function freeBytesAt(folder: string): Promise<number> {
  const stats = await statfs(folder);
  return stats.bavail * stats.bsize;
}

export interface SupervisorLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** What the thread is started with, but the port: the first start's, which every restart keeps. */
export type PgliteThreadSettings = Omit<PgliteThreadData, 'heartbeatMs'>;

// From the sources (tests, tsx) the thread loads them through tsx, as the service's thread does.
const FROM_SOURCES = __filename.endsWith('.ts');
const THREAD_FILE = path.join(__dirname, `pglite-thread${path.extname(__filename)}`);

type State = 'starting' | 'serving' | 'restarting' | 'stopped';

export class PgliteSupervisor {
  private state: State = 'starting';
  private worker: Worker | null = null;
  private port: number;
  private lastBeat = 0;
  /** Why the thread being started was ended, to say so rather than "it ended". */
  private startStalled: string | null = null;
  private watch: NodeJS.Timeout | null = null;
  private retry: NodeJS.Timeout | null = null;
  private troubleSince = 0;
  /** Why the database does not answer now, in words an operator can act on; null while it does. */
  trouble: string | null = null;

  constructor(
    private readonly settings: PgliteThreadSettings,
    private readonly log: SupervisorLog,
  ) {
    this.port = settings.port;
  }

  /** Starts PGlite; resolves with "host:port" once it listens. */
  async start(): Promise<string> {
    const address = await this.spawn();
    this.state = 'serving';
    return address;
  }

  async dump(): Promise<ArrayBuffer> {
    const worker = this.worker;
    if (this.state !== 'serving' || !worker) throw new Error(this.trouble ?? 'the embedded database is not running');
    const dumped = reportOf(worker, 'dumped');
    worker.postMessage({ type: 'dump' } satisfies ThreadRequest);
    return (await dumped).data;
  }

  /** Closes PGlite (it flushes its files), or ends its thread when it does not answer. */
  async stop(): Promise<void> {
    const answering = this.state === 'serving';
    this.state = 'stopped';
    this.clearTimers();
    const worker = this.worker;
    this.worker = null;
    if (!worker) return;
    if (answering) {
      const closed = reportOf(worker, 'stopped').then(undefined, () => undefined);
      worker.postMessage({ type: 'stop' } satisfies ThreadRequest);
      await Promise.race([closed, new Promise<void>((resolve) => setTimeout(resolve, STOP_MS).unref())]);
    }
    await worker.terminate();
  }

  private async spawn(): Promise<string> {
    const worker = new Worker(THREAD_FILE, {
      workerData: { ...this.settings, port: this.port, heartbeatMs: HEARTBEAT_MS } satisfies PgliteThreadData,
      execArgv: FROM_SOURCES ? ['--import', 'tsx'] : undefined,
    });
    this.worker = worker;
    this.startStalled = null;
    this.lastBeat = Date.now();
    worker.on('message', (report: ThreadReport) => {
      if (report.type === 'beat') this.lastBeat = Date.now();
    });
    // A failure of the thread itself, not of a statement: the thread ends, and 'exit' follows.
    worker.on('error', (error) => this.log.warn({ err: error }, 'the embedded database thread failed'));
    worker.on('exit', (code) => {
      if (this.worker === worker && this.state === 'serving')
        this.lose(`its thread ended unexpectedly (exit code ${code})`, {});
    });
    this.watchHeartbeat(worker);
    try {
      const { address } = await reportOf(worker, 'listening');
      this.port = Number(address.slice(address.lastIndexOf(':') + 1));
      return address;
    } catch (error) {
      this.clearTimers();
      if (this.worker === worker) this.worker = null;
      await worker.terminate();
      throw this.startStalled
        ? new Error(`the embedded database stopped answering while starting: ${this.startStalled}`)
        : error;
    }
  }

  private watchHeartbeat(worker: Worker): void {
    if (this.watch) clearInterval(this.watch);
    let checking = false;
    this.watch = setInterval(() => {
      if (checking || Date.now() - this.lastBeat < DISK_FULL_SILENCE_MS) return;
      checking = true;
      void this.freeBytes()
        .then((free) => {
          // Measured again: the beats held up while this thread was busy have been heard meanwhile.
          const silentMs = Date.now() - this.lastBeat;
          const stall = stallOf(silentMs, free);
          if (!stall || this.worker !== worker) return;
          if (this.state === 'serving') this.lose(stall, { silent_ms: silentMs, free_bytes: free });
          else if (this.state !== 'stopped') {
            this.startStalled = stall;
            void worker.terminate();
          }
        })
        .finally(() => {
          checking = false;
        });
    }, HEARTBEAT_MS * 2);
    this.watch.unref();
  }

  /** Null for a database in memory, or when the file system cannot say. */
  private async freeBytes(): Promise<number | null> {
    const { source } = this.settings;
    if (!('dataDir' in source)) return null;
    return freeBytesAt(source.dataDir).catch(() => null);
  }

  /** The database stopped answering, for `reason`: end its thread, then start it again. */
  private lose(reason: string, fields: object): void {
    const worker = this.worker;
    this.clearTimers();
    const restartable = 'dataDir' in this.settings.source;
    this.state = restartable ? 'restarting' : 'stopped';
    this.trouble = `the embedded database stopped answering: ${reason}`;
    this.troubleSince = Date.now();
    this.log.error(fields, `${this.trouble}; ${restartable ? 'starting it again' : 'it is gone (it was in memory)'}`);
    void worker?.terminate();
    if (restartable) this.scheduleRestart(0);
  }

  private scheduleRestart(attempt: number): void {
    const delay = RESTART_DELAYS_MS[Math.min(attempt, RESTART_DELAYS_MS.length - 1)] ?? 0;
    this.retry = setTimeout(() => void this.restart(attempt), delay);
    this.retry.unref();
  }

  private async restart(attempt: number): Promise<void> {
    const free = await this.freeBytes();
    if (this.state !== 'restarting') return;
    if (free !== null && free < WAL_SEGMENT_BYTES) {
      this.trouble =
        `the embedded database is waiting for room on its disk: ${mebibytes(free)} free, ` +
        `its write-ahead log needs ${mebibytes(WAL_SEGMENT_BYTES)}`;
      this.scheduleRestart(0);
      return;
    }
    try {
      await this.spawn();
    } catch (error) {
      if (this.state !== 'restarting') return;
      this.log.warn({ err: error, attempt: attempt + 1 }, 'the embedded database did not start again');
      this.scheduleRestart(attempt + 1);
      return;
    }
    if (this.state !== 'restarting') return;
    this.state = 'serving';
    this.trouble = null;
    this.log.info({ unavailable_ms: Date.now() - this.troubleSince }, 'the embedded database answers again');
  }

  private clearTimers(): void {
    if (this.watch) clearInterval(this.watch);
    if (this.retry) clearTimeout(this.retry);
    this.watch = null;
    this.retry = null;
  }
}

/** The thread's next report of `type`; rejected by a failure it reports, or by its end. */
function reportOf<T extends ThreadReport['type']>(
  worker: Worker,
  type: T,
): Promise<Extract<ThreadReport, { type: T }>> {
  return new Promise((resolve, reject) => {
    const onMessage = (report: ThreadReport): void => {
      if (report.type === 'failed') {
        done();
        reject(new Error(report.message));
      } else if (isOfType(report, type)) {
        done();
        resolve(report);
      }
    };
    const onExit = (code: number): void => {
      done();
      reject(new Error(`the embedded database's thread ended (exit code ${code})`));
    };
    const done = (): void => {
      worker.off('message', onMessage);
      worker.off('exit', onExit);
    };
    worker.on('message', onMessage);
    worker.on('exit', onExit);
  });
}

function isOfType<T extends ThreadReport['type']>(
  report: ThreadReport,
  type: T,
): report is Extract<ThreadReport, { type: T }> {
  return report.type === type;
}
