// `npm run bench:cpu -- <load> [rounds]`: CPU time per request of the service's processes and of
// PostgreSQL's, read from /proc around autocannon runs at 50 connections. Less disturbed by the
// other processes on the machine than requests per second, so it is how two builds are compared
// (docs/performance.md). Loads: healthz, anchors, keyed-anchors, fast-forward, timeline,
// monitor-events (on an account seeded with a million events, as `npm run bench` seeds it).
// PostgreSQL's figure counts every process named `postgres` on this machine: the server must run
// here, and be the only one busy.
import type { Load } from './measure';
import { drive } from './measure';
import { cpuSeconds, processesNamed, processTree, residentMiB } from './processes';
import { createBenchDatabase, MONITORED_PLACE, MONITORED_RANGE, seedEvents } from './seed';
import { call, signUp, startService } from './service';

const ADMIN_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = 50;
const WRITER_ACCOUNTS = 200;
const LOADS = ['healthz', 'anchors', 'keyed-anchors', 'fast-forward', 'timeline', 'monitor-events'] as const;
type LoadName = (typeof LOADS)[number];

const isLoadName = (name: string | undefined): name is LoadName => LOADS.some((each) => each === name);

async function main(): Promise<void> {
  const [name, roundsText = '3'] = process.argv.slice(2);
  if (!isLoadName(name)) throw new Error(`name one load of: ${LOADS.join(', ')}`);
  const rounds = positiveInteger(roundsText, 'the number of rounds');
  const workers = positiveInteger(process.env.BENCH_WORKERS ?? '1', 'BENCH_WORKERS (one number here)');
  const databaseUrl = await createBenchDatabase(ADMIN_URL, 'time_navigation_bench_cpu');
  const service = await startService(databaseUrl, workers);
  try {
    const servicePid = service.child.pid;
    if (servicePid === undefined) throw new Error('the service has no process id');
    const load = await prepare(service.url, databaseUrl, name);
    await drive(service.url, load, CONNECTIONS, 3); // warm-up, not counted
    for (let round = 1; round <= rounds; round++) {
      const before = { service: cpuSeconds(processTree(servicePid)), database: cpuSeconds(postgresProcesses()) };
      const result = await drive(service.url, load, CONNECTIONS, SECONDS);
      const after = { service: cpuSeconds(processTree(servicePid)), database: cpuSeconds(postgresProcesses()) };
      const perRequest = (part: 'service' | 'database') =>
        Math.round((usedBetween(before[part], after[part]) * 1e6) / result.requests.total);
      const failures = result.non2xx + result.errors + result.timeouts;
      console.log(
        `${name} round ${round}: ${Math.round(result.requests.average)} req/s, p50 ${result.latency.p50} ms, ` +
          `p99 ${result.latency.p99} ms, ` +
          `CPU per request: service ${perRequest('service')} µs, PostgreSQL ${perRequest('database')} µs, ` +
          `resident after the run ${Math.round(Math.max(...residentMiB(servicePid)))} MiB` +
          (failures > 0 ? `, ${failures} failures` : ''),
      );
    }
  } finally {
    await service.stop();
  }
}

/**
 * CPU used between two readings: a process started in between counts from zero; one that ended
 * in between is left out (its last part is lost: the figure can come out low, never negative).
 */
function usedBetween(before: Map<number, number>, after: Map<number, number>): number {
  let used = 0;
  for (const [pid, seconds] of after) used += seconds - (before.get(pid) ?? 0);
  return used;
}

function postgresProcesses(): number[] {
  const pids = processesNamed('postgres');
  if (pids.length === 0) throw new Error('no PostgreSQL process on this machine: bench:cpu reads its CPU from /proc');
  return pids;
}

function positiveInteger(text: string, what: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`${what} must be a whole number of at least 1, not ${JSON.stringify(text)}`);
  return value;
}

async function prepare(url: string, databaseUrl: string, name: LoadName): Promise<Load> {
  if (name === 'healthz') return { name, method: 'GET', path: '/healthz' };
  if (name === 'monitor-events') {
    const watcher = await signUp(url, 'cpu-watcher');
    await seedEvents(databaseUrl, watcher.id);
    const monitored = new URLSearchParams({ location: MONITORED_PLACE, time_range: MONITORED_RANGE });
    return {
      name,
      method: 'GET',
      path: `/v1/monitor-events?${monitored.toString()}`,
      headers: { authorization: watcher.auth },
    };
  }
  const writers = await Promise.all(Array.from({ length: WRITER_ACCOUNTS }, (_, n) => signUp(url, `cpu-writer-${n}`)));
  const rotate = writers.map((each) => each.auth);
  const anchor = { method: 'POST', path: '/v1/anchors', rotate, body: { description: 'Bench anchor' } } as const;
  if (name === 'anchors') return { name, ...anchor };
  if (name === 'keyed-anchors') return { name, ...anchor, freshHeader: 'idempotency-key' };
  if (name === 'fast-forward')
    return { name, method: 'POST', path: '/v1/fast-forward', rotate, body: { duration: '1m' } };
  const timeline = await call(url, writers[0].auth, 'POST', '/v1/timelines', {
    name: 'Bench timeline',
    destination_time: '1969-07-20T20:17:40Z',
  });
  return { name, method: 'GET', path: `/timeline/${String(timeline.id)}`, headers: { authorization: writers[0].auth } };
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
