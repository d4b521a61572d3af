// The service as the benchmarks start it, and the API calls they prepare their loads with.
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { otlpSinkEndpoint, TRACE_FILE } from './otlp-sink';
import { startProcess, type Started } from './processes';

const ROOT = join(__dirname, '../..');
/** Extra node flags for the service, to profile it: BENCH_SERVICE_NODE_FLAGS='--cpu-prof --cpu-prof-dir=/tmp/prof'. */
const SERVICE_NODE_FLAGS = (process.env.BENCH_SERVICE_NODE_FLAGS ?? '').split(' ').filter(Boolean);
/** The same for the bare app (bare-express.ts): BENCH_BARE_NODE_FLAGS. */
const BARE_NODE_FLAGS = (process.env.BENCH_BARE_NODE_FLAGS ?? '').split(' ').filter(Boolean);
/** BENCH_SERVICE_LOG=<file>: every service's request log from its start, appended there, to read its requests. */
const SERVICE_LOG = process.env.BENCH_SERVICE_LOG;

export interface ServiceOptions {
  /** Node flags before the script's, besides BENCH_SERVICE_NODE_FLAGS. */
  readonly nodeFlags?: readonly string[];
  /** More environment for the service (DATA_DIR, say). */
  readonly env?: NodeJS.ProcessEnv;
  /** Another checkout's built service, to compare two builds (builds-in-turn.ts); default this one. */
  readonly root?: string;
}

/**
 * The service as it runs in production: the built code, JSON request log, rate limit on.
 * `databaseUrl` '' runs it on the embedded database, even when this process has a DATABASE_URL.
 */
export async function startService(
  databaseUrl: string,
  workers: number,
  options: ServiceOptions = {},
): Promise<Started> {
  const nodeFlags = [...(options.nodeFlags ?? []), ...SERVICE_NODE_FLAGS];
  const args = ['--enable-source-maps', ...nodeFlags, join(options.root ?? ROOT, 'dist/main.js')];
  const started = await startProcess(process.execPath, args, {
    NODE_ENV: 'production',
    // As `npm start` and the container image run it (.env.example).
    NODE_OPTIONS: process.env.NODE_OPTIONS ?? '--max-old-space-size=128 --max-semi-space-size=16',
    MALLOC_MMAP_THRESHOLD_: process.env.MALLOC_MMAP_THRESHOLD_ ?? '131072',
    HOST: '127.0.0.1',
    PORT: '0',
    DATABASE_URL: databaseUrl,
    // Production's settings, on the embedded database too when the bench measures it.
    ACCEPT_EMBEDDED_DATABASE: databaseUrl ? 'off' : 'on',
    WEB_CONCURRENCY: String(workers),
    // Counted on every request like any other limit, but set above what the bench sends, so the
    // figures are the service's work and not its refusals; BENCH_RATE_LIMIT_PER_SECOND=0 turns the
    // limit off, to measure what counting costs (docs/performance.md).
    RATE_LIMIT_PER_SECOND: process.env.BENCH_RATE_LIMIT_PER_SECOND ?? '1000000',
    RATE_LIMIT_ACCOUNTS_PER_MINUTE: '1000',
    // The healthz load sends requests without a key from one address: counted, never refused.
    RATE_LIMIT_ANONYMOUS_PER_MINUTE: '1000000000',
    // BENCH_METRICS_PORT=<port> turns the metrics on (unscraped), to measure what counting costs.
    ...(process.env.BENCH_METRICS_PORT ? { METRICS_PORT: process.env.BENCH_METRICS_PORT } : {}),
    // BENCH_TRACES=<ratio> turns tracing on, sampling that share of the requests, exported to a sink.
    ...(process.env.BENCH_TRACES ? await tracing(process.env.BENCH_TRACES) : {}),
    ...options.env,
  });
  if (SERVICE_LOG) {
    const log = createWriteStream(SERVICE_LOG, { flags: 'a' });
    started.child.stdout?.pipe(log);
    // Its dying words too (a heap exhausted, an uncaught error), which go to stderr.
    started.child.stderr?.pipe(log);
  }
  return started;
}

async function tracing(ratio: string): Promise<NodeJS.ProcessEnv> {
  return {
    OTEL_EXPORTER_OTLP_ENDPOINT: await otlpSinkEndpoint(),
    // Kept spans are read as text; the cost is measured with the default, protobuf.
    ...(TRACE_FILE && { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }),
    OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
    OTEL_TRACES_SAMPLER_ARG: ratio,
  };
}

/**
 * The bare app (bare-express.ts): the yardstick, the floors on the service's database and, given a
 * database of its own, the calibration round trips. Without one it touches no other database, even
 * when this process has a DATABASE_URL.
 */
export function startBare(databases: { serviceDatabaseUrl: string; calibrationDatabaseUrl?: string }) {
  return startProcess(process.execPath, [...BARE_NODE_FLAGS, '--import', 'tsx', join(__dirname, 'bare-express.ts')], {
    NODE_ENV: 'production',
    DATABASE_URL: databases.calibrationDatabaseUrl ?? '',
    SERVICE_DATABASE_URL: databases.serviceDatabaseUrl,
  });
}

/**
 * `count` accounts, `who-0` to `who-<count - 1>`, signed up 20 at a time: each sign-up hashes its
 * password (scrypt, tens of milliseconds of CPU), and a burst of hundreds at once would wait past the
 * service's database timeout for their turn, answered 503 as the service answers any overload.
 */
export async function signUpMany(url: string, who: string, count: number) {
  const accounts: Array<Awaited<ReturnType<typeof signUp>>> = [];
  for (let start = 0; start < count; start += 20) {
    const batch = Array.from({ length: Math.min(20, count - start) }, (_, n) => signUp(url, `${who}-${start + n}`));
    accounts.push(...(await Promise.all(batch)));
  }
  return accounts;
}

export async function signUp(url: string, who: string) {
  const body = await call(url, undefined, 'POST', '/v1/accounts', {
    email: `${who}-${Date.now()}@bench.example`,
    password: 'correct horse battery',
  });
  return { id: String(body.id), auth: `Bearer ${String(body.api_key)}` };
}

export async function call(
  url: string,
  auth: string | undefined,
  method: string,
  path: string,
  body: unknown,
): Promise<Record<string, unknown>> {
  const response = await fetch(new URL(path, url), {
    method,
    headers: { 'content-type': 'application/json', ...(auth && { authorization: auth }) },
    body: JSON.stringify(body),
  });
  const answer: unknown = await response.json();
  if (!response.ok || typeof answer !== 'object' || answer === null)
    throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(answer)}`);
  return Object.fromEntries(Object.entries(answer));
}
