// The test databases of a run without DATABASE_URL: in-memory PGlite databases that Jest's parent
// process serves to the test files, each started from a snapshot on a thread of a pool
// (pglite-pool-thread.ts) and reached over a local socket, as the service reaches its embedded one.
//
// Why in the parent, not in each test file: a PGlite started on a new thread costs about 0.9 s of
// CPU (its JavaScript and WebAssembly compiled cold, and tsx loaded for the thread); on a thread
// that served one before, about a third of that. Test files come and go; the parent stays for the
// whole run, so its threads stay warm.
//
// The test files ask over HTTP on 127.0.0.1 (the workers are other processes):
//   POST /databases {"from": "migrated" | "blank"} -> 201 {"id", "connectionString"}
//   DELETE /databases/<id>                           -> 204, the database gone
import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, request as httpRequest, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { MAX_SOCKET_CONNECTIONS } from '../../src/infrastructure/database/embedded/embedded-postgres';
import type { PoolThreadReport, PoolThreadRequest } from './pglite-pool-thread';

/** Where the global setup keeps the pool for the global teardown: Jest runs both in its parent process. */
export const POOL_GLOBAL = Symbol.for('tns.testDatabasePool');

export type PoolSnapshot = 'migrated' | 'blank';

export interface PgliteSnapshots {
  readonly migrated: Uint8Array;
  readonly blank: Uint8Array;
}

/** A thread that answers one request at a time: open, then close, then open again. */
class PoolThread {
  private readonly worker = new Worker(path.join(__dirname, 'pglite-pool-thread.ts'), {
    execArgv: ['--import', 'tsx'],
  });
  private pending: { resolve(report: PoolThreadReport): void; reject(error: Error): void } | null = null;
  private ended: Error | null = null;

  constructor() {
    this.worker.on('message', (report: PoolThreadReport) => this.settle((waiting) => waiting.resolve(report)));
    this.worker.on('error', (error: unknown) => this.end(error instanceof Error ? error : new Error(String(error))));
    this.worker.on('exit', (code) => this.end(new Error(`a test database thread ended (exit code ${code})`)));
  }

  async ask(request: PoolThreadRequest): Promise<PoolThreadReport> {
    if (this.ended) throw this.ended;
    const report = await new Promise<PoolThreadReport>((resolve, reject) => {
      this.pending = { resolve, reject };
      this.worker.postMessage(request);
    });
    if (report.type === 'failed') throw new Error(report.message);
    return report;
  }

  get usable(): boolean {
    return this.ended === null;
  }

  terminate(): Promise<number> {
    this.ended ??= new Error('the test database pool stopped');
    return this.worker.terminate();
  }

  private end(error: Error): void {
    this.ended ??= error;
    this.settle((waiting) => waiting.reject(error));
  }

  private settle(action: (waiting: NonNullable<PoolThread['pending']>) => void): void {
    const waiting = this.pending;
    this.pending = null;
    if (waiting) action(waiting);
  }
}

export class PglitePool {
  /** Every thread made, whatever it is doing; `idle` and `open` say which serve nothing, and what. */
  private readonly threads = new Set<PoolThread>();
  private readonly idle: PoolThread[] = [];
  private readonly open = new Map<string, PoolThread>();
  private readonly snapshots: Record<PoolSnapshot, SharedArrayBuffer>;
  private readonly server = createServer((request, response) => {
    this.handle(request, response).catch((error: unknown) => {
      reply(response, 500, { error: error instanceof Error ? error.message : String(error) });
    });
  });

  private constructor(snapshots: PgliteSnapshots) {
    this.snapshots = { migrated: shared(snapshots.migrated), blank: shared(snapshots.blank) };
  }

  /** Listens on 127.0.0.1; `url` is where the test files ask. */
  static async start(snapshots: PgliteSnapshots): Promise<{ pool: PglitePool; url: string }> {
    const pool = new PglitePool(snapshots);
    pool.server.listen(0, '127.0.0.1');
    await once(pool.server, 'listening');
    const { port } = pool.server.address() as AddressInfo;
    return { pool, url: `http://127.0.0.1:${port}` };
  }

  async stop(): Promise<void> {
    this.server.close();
    this.server.closeAllConnections();
    // Every thread, a busy one too: one left running would keep Jest's process from exiting.
    await Promise.all([...this.threads].map((thread) => thread.terminate()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const closing = /^\/databases\/([\w-]+)$/.exec(request.url ?? '');
    if (request.method === 'POST' && request.url === '/databases') {
      const { from } = JSON.parse(await bodyOf(request)) as { from?: string };
      if (from !== 'migrated' && from !== 'blank') return reply(response, 400, { error: `no snapshot "${from}"` });
      return reply(response, 201, await this.openDatabase(from));
    }
    if (request.method === 'DELETE' && closing) {
      await this.closeDatabase(closing[1] ?? '');
      return reply(response, 204);
    }
    reply(response, 404, { error: `${request.method} ${request.url} is not served here` });
  }

  private async openDatabase(from: PoolSnapshot): Promise<{ id: string; connectionString: string }> {
    const thread = this.idle.pop() ?? this.newThread();
    const password = randomBytes(24).toString('base64url');
    let report: PoolThreadReport;
    try {
      report = await thread.ask({
        type: 'open',
        snapshot: this.snapshots[from],
        maxConnections: MAX_SOCKET_CONNECTIONS,
        password,
      });
    } catch (error) {
      // A failed open leaves the thread serving nothing (pglite-pool-thread.ts): it serves the next.
      if (thread.usable) this.idle.push(thread);
      else this.threads.delete(thread);
      throw error;
    }
    if (report.type !== 'opened') throw new Error(`a test database thread answered ${report.type} to open`);
    const id = randomUUID();
    this.open.set(id, thread);
    return { id, connectionString: `postgresql://postgres:${password}@${report.address}/postgres?sslmode=disable` };
  }

  private async closeDatabase(id: string): Promise<void> {
    const thread = this.open.get(id);
    if (!thread) return; // closed already: closing is idempotent, as DROP DATABASE IF EXISTS is
    this.open.delete(id);
    await thread.ask({ type: 'close' });
    this.idle.push(thread);
  }

  private newThread(): PoolThread {
    const thread = new PoolThread();
    this.threads.add(thread);
    return thread;
  }
}

export interface PooledDatabase {
  readonly connectionString: string;
  /** Ends the database; its thread serves the next one. */
  close(): Promise<void>;
}

/** A new database from the pool at `poolUrl`, started from the snapshot `from`. */
export async function openPooledDatabase(poolUrl: string, from: PoolSnapshot): Promise<PooledDatabase> {
  const opened = await ask(`${poolUrl}/databases`, 'POST', JSON.stringify({ from }));
  if (opened.status !== 201) throw new Error(`the test database pool answered ${opened.status}: ${opened.body}`);
  const { id, connectionString } = JSON.parse(opened.body) as { id: string; connectionString: string };
  return {
    connectionString,
    async close() {
      const closed = await ask(`${poolUrl}/databases/${id}`, 'DELETE');
      if (closed.status !== 204) throw new Error(`the test database pool answered ${closed.status}: ${closed.body}`);
    },
  };
}

/**
 * One request on a connection of its own. fetch keeps connections open between requests, and one
 * that the pool's server closed as idle while the test's process was too busy to notice was reused:
 * "other side closed" (seen on a loaded machine).
 */
function ask(url: string, method: string, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest(url, { method, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
      );
      response.on('error', reject);
    });
    sent.on('error', reject);
    sent.end(body);
  });
}

/** One copy the threads share, so a database's start does not copy the snapshot across threads. */
function shared(bytes: Uint8Array): SharedArrayBuffer {
  const buffer = new SharedArrayBuffer(bytes.byteLength);
  new Uint8Array(buffer).set(bytes);
  return buffer;
}

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function reply(response: ServerResponse, status: number, body?: object): void {
  response.writeHead(status, body ? { 'content-type': 'application/json' } : {});
  response.end(body ? JSON.stringify(body) : undefined);
}
