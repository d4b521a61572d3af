// `npm run bench:cpu -- <load> [rounds]`: CPU time per request of the service's processes and of
// PostgreSQL's, read from /proc around autocannon runs at 50 connections. Less disturbed by the
// other processes on the machine than requests per second, so it is how two builds are compared
// (docs/performance.md). Loads: healthz, anchors, keyed-anchors, fast-forward, timeline.
import type { Load } from './measure';
import { drive } from './measure';
import { cpuSeconds, processesNamed, processTree } from './processes';
import { createBenchDatabase } from './seed';
import { call, signUp, startService } from './service';

const ADMIN_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = 50;
const WRITER_ACCOUNTS = 200;
const LOADS = ['healthz', 'anchors', 'keyed-anchors', 'fast-forward', 'timeline'] as const;
type LoadName = (typeof LOADS)[number];

async function main(): Promise<void> {
  const [name, roundsText = '3'] = process.argv.slice(2);
  if (!LOADS.includes(name as LoadName)) throw new Error(`name one load of: ${LOADS.join(', ')}`);
  const rounds = Number(roundsText);
  const service = await startService(await createBenchDatabase(ADMIN_URL, 'time_navigation_bench_cpu'), Number(process.env.BENCH_WORKERS ?? 1));
  try {
    const load = await prepare(service.url, name as LoadName);
    await drive(service.url, load, CONNECTIONS, 3); // warm-up, not counted
    for (let round = 1; round <= rounds; round++) {
      const servicePids = processTree(service.child.pid ?? 0);
      const databasePids = processesNamed('postgres');
      const before = { service: cpuSeconds(servicePids), database: cpuSeconds(databasePids) };
      const result = await drive(service.url, load, CONNECTIONS, SECONDS);
      const perRequest = (seconds: number) => Math.round((seconds * 1e6) / result.requests.total);
      const failures = result.non2xx + result.errors + result.timeouts;
      console.log(
        `${name} round ${round}: ${Math.round(result.requests.average)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, ` +
          `CPU per request: service ${perRequest(cpuSeconds(servicePids) - before.service)} µs, PostgreSQL ${perRequest(cpuSeconds(databasePids) - before.database)} µs` +
          (failures > 0 ? `, ${failures} failures` : ''),
      );
    }
  } finally {
    await service.stop();
  }
}

async function prepare(url: string, name: LoadName): Promise<Load> {
  if (name === 'healthz') return { name, method: 'GET', path: '/healthz' };
  const writers = await Promise.all(Array.from({ length: WRITER_ACCOUNTS }, (_, n) => signUp(url, `cpu-writer-${n}`)));
  const rotate = writers.map((each) => each.auth);
  const anchor = { method: 'POST', path: '/v1/anchors', rotate, body: { description: 'Bench anchor' } } as const;
  if (name === 'anchors') return { name, ...anchor };
  if (name === 'keyed-anchors') return { name, ...anchor, freshHeader: 'idempotency-key' };
  if (name === 'fast-forward') return { name, method: 'POST', path: '/v1/fast-forward', rotate, body: { duration: '1m' } };
  const timeline = await call(url, writers[0].auth, 'POST', '/v1/timelines', { name: 'Bench timeline', destination_time: '1969-07-20T20:17:40Z' });
  return { name, method: 'GET', path: `/timeline/${String(timeline.id)}`, headers: { authorization: writers[0].auth } };
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
