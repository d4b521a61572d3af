// Tracing costs no more memory than its bound (docs/operations.md, "Traces"): a service process with
// the heap `npm start` gives it, tracing to a collector that takes requests and never answers, under
// 100 connections of unauthenticated requests each carrying a sampled `traceparent` and a 15 KB
// `User-Agent`, for two minutes. It lives, its heap (read from its own metrics) stays under the
// bound, what it could not export is counted, and said at most once a minute.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import { freeLoopbackPort } from '../support/free-port';
import { sumOf } from '../support/metrics/exposition';
import { startServiceProcess, type ServiceProcess } from '../support/service-process';
import { provisionTestDatabase, type TestDatabase } from '../support/test-database';

const LOAD_SECONDS = 120;
const CONNECTIONS = 100;
/** Under Node's 16 KiB for a request's headers, with the others. */
const USER_AGENT = `Mozilla/5.0 (a client that says a lot) ${'x'.repeat(15 * 1024 - 40)}`;
const MIB = 1024 * 1024;

/** The Node options `npm start` runs the service with when NODE_OPTIONS is unset. */
async function startOptions(): Promise<{ nodeOptions: string; heapMiB: number }> {
  const scripts = (
    JSON.parse(await readFile(join(__dirname, '../../package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    }
  ).scripts;
  const nodeOptions = /NODE_OPTIONS="\$\{NODE_OPTIONS:-([^}]+)\}"/.exec(scripts.start ?? '')?.[1];
  const heapMiB = Number(/--max-old-space-size=(\d+)/.exec(nodeOptions ?? '')?.[1]);
  if (!nodeOptions || !Number.isFinite(heapMiB)) throw new Error('npm start sets no heap bound');
  return { nodeOptions, heapMiB };
}

interface StalledCollector {
  readonly endpoint: string;
  /** Exports it was sent. */
  requests(): number;
  /** The most exports it held open at once. */
  mostAtOnce(): number;
  close(): Promise<void>;
}

/** A collector that takes connections and reads requests, and never answers one. */
async function stalledCollector(): Promise<StalledCollector> {
  let requests = 0;
  let open = 0;
  let mostAtOnce = 0;
  const server: Server = createServer((req, res) => {
    requests++;
    open++;
    mostAtOnce = Math.max(mostAtOnce, open);
    // Never answered: closed when the exporter gives up on it.
    res.once('close', () => open--);
    req.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests: () => requests,
    mostAtOnce: () => mostAtOnce,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Where the service keeps its data: a fresh database on the server, or a fresh embedded folder. */
async function freshStore(): Promise<{ env: Record<string, string>; close(): Promise<void> }> {
  if (process.env.DATABASE_URL?.trim()) {
    const database: TestDatabase = await provisionTestDatabase();
    return { env: { DATABASE_URL: database.connectionString }, close: () => database.close() };
  }
  const folder = await mkdtemp(join(tmpdir(), 'tns-tracing-memory-'));
  return { env: { DATA_DIR: folder }, close: () => rm(folder, { recursive: true, force: true }) };
}

it('lives under its heap bound with a stalled collector, counting and saying what it drops', async () => {
  const { nodeOptions, heapMiB } = await startOptions();
  const collector = await stalledCollector();
  const store = await freshStore();
  const metricsPort = await freeLoopbackPort();
  let service: ServiceProcess | undefined;
  try {
    service = await startServiceProcess({
      ...store.env,
      NODE_OPTIONS: nodeOptions,
      LOG_LEVEL: 'warn',
      // The per-address limit off: every request served, and a span each.
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '0',
      METRICS_PORT: String(metricsPort),
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
    });
    let exited = false;
    const running = service.exited.then(() => (exited = true));
    const metrics = async () => (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();

    // The heap as the process reports it, every second the load lasts.
    let peakHeap = 0;
    let scrapes = 0;
    const watching = setInterval(() => {
      metrics().then(
        (text) => {
          scrapes++;
          peakHeap = Math.max(peakHeap, sumOf(text, 'nodejs_heap_size_used_bytes'));
        },
        () => undefined,
      );
    }, 1_000);
    const load = await new Promise<autocannon.Result>((resolve, reject) => {
      const instance = autocannon(
        {
          url: `${service?.url}/healthz`,
          connections: CONNECTIONS,
          duration: LOAD_SECONDS,
          requests: [
            {
              setupRequest: (req) => ({
                ...req,
                headers: {
                  'user-agent': USER_AGENT,
                  traceparent: `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`,
                },
              }),
            },
          ],
        },
        (error, result) => (error ? reject(error) : resolve(result)),
      );
      // A process that died ends the load: the test fails now rather than in two minutes.
      void running.then(() => instance.stop());
    });
    clearInterval(watching);

    expect(exited).toBe(false);
    // Loaded as meant: the service answered throughout, and the collector was sent exports.
    expect(load.non2xx).toBe(0);
    expect(load.requests.total).toBeGreaterThan(10_000);
    expect(collector.requests()).toBeGreaterThan(0);
    // One export in flight at a time, each ended by its timeout.
    expect(collector.mostAtOnce()).toBe(1);
    expect(scrapes).toBeGreaterThan(LOAD_SECONDS / 2);
    expect(peakHeap).toBeLessThan(heapMiB * MIB);

    const text = await metrics();
    expect(sumOf(text, 'otel_sdk_processor_span_processed_total', { error_type: 'queue_full' })).toBeGreaterThan(0);
    // Said at once, then at most once a minute, and no other line of OpenTelemetry's about it.
    const lines = service.output().split('\n');
    const lossLines = lines.filter((line) => line.includes('spans not exported')).length;
    expect(lossLines).toBeGreaterThanOrEqual(2);
    expect(lossLines).toBeLessThanOrEqual(1 + Math.ceil(LOAD_SECONDS / 60));
    expect(lines.filter((line) => line.includes('OpenTelemetry:'))).toHaveLength(lossLines);
    expect(await service.stop()).toBe(0);
    service = undefined;
  } finally {
    await service?.kill('SIGKILL');
    await collector.close();
    await store.close();
  }
}, 240_000);
