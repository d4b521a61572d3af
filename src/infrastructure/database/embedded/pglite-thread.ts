// The embedded PostgreSQL's own thread: PGlite and its wire server run here, not on the service's
// thread. PGlite runs each message synchronously inside its WebAssembly, and when its write-ahead log
// cannot grow it never returns (it spins); on the service's thread that stopped every answer, the
// health probe and SIGTERM included. Here it stops only this thread, whose silence the service's
// thread notices and which it can end and start again (pglite-supervisor.ts).
//
// The clients' bytes go from their sockets to PGlite within this thread: nothing of a statement
// crosses between threads.
import { parentPort, workerData } from 'node:worker_threads';
import { openPglite, type PGlite, type PgliteSource } from './pglite-module';
import { PgliteWireServer } from './pglite-wire-server';

export interface PgliteThreadData {
  /** What the thread starts from: a data directory, or a database in memory (from a dump). */
  readonly source: PgliteSource;
  /** PostgreSQL's `-c` settings, at every start and at initdb. */
  readonly settings: readonly string[];
  readonly host: string;
  /** 0: any free port. */
  readonly port: number;
  readonly maxConnections: number;
  readonly password: string;
  /** How often the thread says it is alive while PGlite is between messages. */
  readonly heartbeatMs: number;
}

export type ThreadRequest = { readonly type: 'stop' } | { readonly type: 'dump' };

export type ThreadReport =
  | { readonly type: 'beat' }
  | { readonly type: 'listening'; readonly address: string }
  | { readonly type: 'failed'; readonly message: string }
  | { readonly type: 'dumped'; readonly data: ArrayBuffer }
  | { readonly type: 'stopped' };

async function run(port: NonNullable<typeof parentPort>, data: PgliteThreadData): Promise<void> {
  const report = (message: ThreadReport, transfer: ArrayBuffer[] = []): void => port.postMessage(message, transfer);
  const heartbeat = setInterval(() => report({ type: 'beat' }), data.heartbeatMs);
  let db: PGlite;
  let server: PgliteWireServer;
  try {
    db = await openPglite(data.source, data.settings);
  } catch (error) {
    clearInterval(heartbeat);
    report({ type: 'failed', message: messageOf(error) });
    return;
  }
  try {
    const { host, port: listenPort, maxConnections, password } = data;
    server = new PgliteWireServer({ db, host, port: listenPort, maxConnections, password });
    report({ type: 'listening', address: await server.start() });
  } catch (error) {
    clearInterval(heartbeat);
    await db.close().catch(() => undefined); // the failure to report is the first one
    report({ type: 'failed', message: messageOf(error) });
    return;
  }
  const failed = (error: unknown): void => report({ type: 'failed', message: messageOf(error) });
  port.on('message', (request: ThreadRequest) => {
    if (request.type === 'dump') {
      db.dumpDataDir('none')
        .then((dump) => dump.arrayBuffer())
        .then((buffer) => report({ type: 'dumped', data: buffer }, [buffer]), failed);
      return;
    }
    clearInterval(heartbeat);
    server
      .stop()
      // Closing PGlite flushes its files; skipping it can lose the last writes.
      .finally(() => db.close())
      .then(() => report({ type: 'stopped' }), failed)
      .finally(() => port.close());
  });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

if (parentPort) {
  const data: PgliteThreadData = workerData;
  void run(parentPort, data);
}
