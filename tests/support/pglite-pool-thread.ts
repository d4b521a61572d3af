// One thread of the test databases' pool (pglite-pool.ts): it serves one in-memory PGlite at a time
// over a local socket, as the service's embedded database is served (pglite-wire-server.ts), and
// when that one is closed, the next. A thread that served one before starts the next in about a
// third of the CPU of a new thread: PGlite's JavaScript and WebAssembly are compiled and warm.
import { parentPort } from 'node:worker_threads';
import { EMBEDDED_SETTING_FLAGS } from '../../src/infrastructure/database/embedded/embedded-postgres';
import { openPglite, type PGlite } from '../../src/infrastructure/database/embedded/pglite-module';
import { PgliteWireServer } from '../../src/infrastructure/database/embedded/pglite-wire-server';

export type PoolThreadRequest =
  | {
      readonly type: 'open';
      /** A dump of the database to start from, shared by every thread (the thread copies it). */
      readonly snapshot: SharedArrayBuffer;
      readonly maxConnections: number;
      readonly password: string;
    }
  | { readonly type: 'close' };

export type PoolThreadReport =
  | { readonly type: 'opened'; readonly address: string }
  | { readonly type: 'closed' }
  | { readonly type: 'failed'; readonly message: string };

let serving: { readonly db: PGlite; readonly server: PgliteWireServer } | null = null;

async function open(request: Extract<PoolThreadRequest, { type: 'open' }>): Promise<PoolThreadReport> {
  const initialData = new Uint8Array(request.snapshot).slice().buffer;
  const db = await openPglite({ inMemory: true, initialData }, EMBEDDED_SETTING_FLAGS);
  const { maxConnections, password } = request;
  const server = new PgliteWireServer({ db, host: '127.0.0.1', port: 0, maxConnections, password });
  try {
    const address = await server.start();
    serving = { db, server };
    return { type: 'opened', address };
  } catch (error) {
    await db.close();
    throw error;
  }
}

async function close(): Promise<PoolThreadReport> {
  const current = serving;
  serving = null;
  if (current) {
    try {
      await current.server.stop();
    } finally {
      await current.db.close();
    }
  }
  return { type: 'closed' };
}

if (parentPort) {
  const port = parentPort;
  port.on('message', (request: PoolThreadRequest) => {
    (request.type === 'open' ? open(request) : close()).then(
      (report) => port.postMessage(report),
      (error: unknown) =>
        port.postMessage({ type: 'failed', message: error instanceof Error ? error.message : String(error) }),
    );
  });
}
