// `npm run bench:cpu -- <load> [rounds]`: CPU time per request of the service's processes and of
// PostgreSQL's, read from /proc around autocannon runs at 50 connections, then the same of the
// load's floor (its statements alone behind the bare app: floors.ts). Less disturbed by the other
// processes on the machine than requests per second, so it is how two builds, or the service and
// its floor, are compared (docs/performance.md). Loads: healthz, anchors, keyed-anchors, fast-forward, timeline,
// monitor-events (on an account seeded with a million events, as `npm run bench` seeds it),
// monitor-paradox (on a timeline of 10,000 displaced events, against the same request on an empty
// timeline rather than a floor: the paradox goal compares the two), paradox-check (`POST
// /v1/paradox-checks` of 100 proposed changes on an empty timeline, against the same check with none:
// what its names cost, validation first).
// PostgreSQL's figure counts every process named `postgres` on this machine: the server must run
// here, and be the only one busy. BENCH_POOLER=pgbouncer puts Debian's PgBouncer, as deploy/pgbouncer
// configures it, between the service and PostgreSQL (the floor stays on PostgreSQL itself), and
// adds PgBouncer's CPU per request.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { FLOOR_ACCOUNT_HEADER } from './floors';
import type { Load } from './measure';
import { drive } from './measure';
import {
  askProbe,
  cpuSeconds,
  postgresProcesses,
  processesNamed,
  processTree,
  residentMiB,
  type Started,
  usedBetween,
} from './processes';
import {
  createBenchDatabase,
  MONITORED_PLACE,
  MONITORED_RANGE,
  PARADOX_RANGE,
  paradoxTimelines,
  seedEvents,
} from './seed';
import { call, signUp, signUpMany, startBare, startService } from './service';
import { startPgBouncer, type PgBouncer } from '../../tests/support/pooler/pgbouncer';

const ADMIN_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const WRITER_ACCOUNTS = 200;
const LOADS = [
  'healthz',
  'anchors',
  'keyed-anchors',
  'fast-forward',
  'timeline',
  'monitor-events',
  'monitor-paradox',
  'paradox-check',
] as const;
type LoadName = (typeof LOADS)[number];

const isLoadName = (name: string | undefined): name is LoadName => LOADS.some((each) => each === name);
const POOLER = process.env.BENCH_POOLER ?? '';

async function main(): Promise<void> {
  const [name, roundsText = '3'] = process.argv.slice(2);
  if (!isLoadName(name)) throw new Error(`name one load of: ${LOADS.join(', ')}`);
  const rounds = positiveInteger(roundsText, 'the number of rounds');
  const workers = positiveInteger(process.env.BENCH_WORKERS ?? '1', 'BENCH_WORKERS (one number here)');
  if (POOLER !== '' && POOLER !== 'pgbouncer') throw new Error(`BENCH_POOLER is pgbouncer or unset, not ${POOLER}`);
  const databaseUrl = await createBenchDatabase(ADMIN_URL, 'time_navigation_bench_cpu');
  const pooler = POOLER ? await startPooler(databaseUrl) : undefined;
  // One worker serves in the process started, where gc-probe.js reports its garbage collections.
  const gcProbe = workers === 1;
  const service = await startService(pooler?.url ?? databaseUrl, workers, {
    nodeFlags: gcProbe ? ['--require', join(__dirname, 'gc-probe.js')] : [],
    env: pooler ? { DATABASE_DIRECT_URL: databaseUrl } : {},
  });
  try {
    const {
      load,
      floor,
      floorOnService,
      floorName = 'its floor',
      modelled,
    } = await prepare(service.url, databaseUrl, name);
    const bare = await startBare({ serviceDatabaseUrl: databaseUrl });
    const floorServer = floorOnService ? service : bare;
    try {
      await drive(service.url, load, CONNECTIONS, 3); // warm-up, not counted
      await drive(floorServer.url, floor, CONNECTIONS, 3);
      if (modelled) await drive(bare.url, modelled, CONNECTIONS, 3);
      for (let round = 1; round <= rounds; round++) {
        if (gcProbe) await askProbe(service, 'gc-probe'); // counts from here
        const measured = await measureCpu(service, load);
        const collected = gcProbe ? `; ${collections(await askProbe(service, 'gc-probe'), measured.requests)}` : '';
        console.log(`${name} round ${round}: ${measured.line}${collected}`);
        const floorMeasured = await measureCpu(floorServer, floor);
        console.log(
          `${name} round ${round}, ${floorName}: ${floorMeasured.line}; service ${against(measured, floorMeasured)}`,
        );
        if (!modelled) continue;
        const modelledMeasured = await measureCpu(bare, modelled);
        console.log(
          `${name} round ${round}, its floor with the domain model: ${modelledMeasured.line}; ` +
            against(modelledMeasured, floorMeasured),
        );
      }
    } finally {
      await bare.stop();
    }
  } finally {
    await service.stop();
    await pooler?.stop();
  }
}

/** PgBouncer in front of the bench database, logging in as the server's own user. */
function startPooler(databaseUrl: string): Promise<PgBouncer> {
  const server = new URL(databaseUrl);
  return startPgBouncer({
    serverUrl: databaseUrl,
    database: server.pathname.slice(1),
    user: server.username || 'postgres',
    password: randomBytes(12).toString('hex'),
  });
}

/** One run of `load` on `server`, with the CPU time per request of its processes and PostgreSQL's. */
async function measureCpu(server: Started, load: Load) {
  const pid = server.child.pid;
  if (pid === undefined) throw new Error('the server has no process id');
  const reading = () => ({
    server: cpuSeconds(processTree(pid)),
    database: cpuSeconds(postgresProcesses()),
    pooler: cpuSeconds(processesNamed('pgbouncer')),
  });
  const before = reading();
  const result = await drive(server.url, load, CONNECTIONS, SECONDS);
  const after = reading();
  const perRequest = (part: 'server' | 'database' | 'pooler') =>
    Math.round((usedBetween(before[part], after[part]) * 1e6) / result.requests.total);
  const failures = result.non2xx + result.errors + result.timeouts;
  const serviceMicros = perRequest('server');
  return {
    serviceMicros,
    requests: result.requests.total,
    requestsPerSecond: result.requests.average,
    line:
      `${Math.round(result.requests.average)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, ` +
      `CPU per request: server ${serviceMicros} µs, PostgreSQL ${perRequest('database')} µs, ` +
      (POOLER ? `PgBouncer ${perRequest('pooler')} µs, ` : '') +
      `resident after the run ${Math.round(Math.max(...residentMiB(pid)))} MiB` +
      (failures > 0 ? `, ${failures} failures` : ''),
  };
}

/** A server's figures against its floor's: CPU per request over the floor's, requests a second as a share of its. */
function against(
  measured: { serviceMicros: number; requestsPerSecond: number },
  floor: { serviceMicros: number; requestsPerSecond: number },
): string {
  return (
    `CPU ÷ floor CPU ${(measured.serviceMicros / floor.serviceMicros).toFixed(2)}, ` +
    `requests a second ÷ the floor's ${(measured.requestsPerSecond / floor.requestsPerSecond).toFixed(2)}`
  );
}

/** gc-probe.js's report as a clause: per kind of collection, how many and its time per request. */
function collections(report: unknown, requests: number): string {
  const { collections: byKind } = report as { collections: Record<string, { count: number; ms: number }> };
  const kinds = Object.entries(byKind).map(
    ([kind, { count, ms }]) => `${kind} ${count} (${Math.round((ms * 1000) / requests)} µs per request)`,
  );
  return `garbage collections: ${kinds.join(', ') || 'none'}`;
}

function positiveInteger(text: string, what: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`${what} must be a whole number of at least 1, not ${JSON.stringify(text)}`);
  return value;
}

/**
 * The load, and its floor on the bare app (floors.ts) as `npm run bench` sends it; healthz's is the
 * bare app's GET, which answers without the database as healthz does. The two reads also have
 * their floor with the domain model (modelled-floors.ts).
 */
async function prepare(
  url: string,
  databaseUrl: string,
  name: LoadName,
): Promise<{ load: Load; floor: Load; floorOnService?: boolean; floorName?: string; modelled?: Load }> {
  if (name === 'healthz')
    return { load: { name, method: 'GET', path: '/healthz' }, floor: { name, method: 'GET', path: '/bare' } };
  if (name === 'monitor-events') {
    const watcher = await signUp(url, 'cpu-watcher');
    await seedEvents(databaseUrl, watcher.id);
    const monitored = new URLSearchParams({ location: MONITORED_PLACE, time_range: MONITORED_RANGE }).toString();
    return {
      load: { name, method: 'GET', path: `/v1/monitor-events?${monitored}`, headers: { authorization: watcher.auth } },
      floor: readOnFloor(name, `/floor/listing?${monitored}`, watcher.id),
      modelled: readOnFloor(name, `/floor/modelled/listing?${monitored}`, watcher.id),
    };
  }
  if (name === 'monitor-paradox') {
    const { checker, empty, crowded } = await paradoxTimelines(url, databaseUrl, 'cpu-checker');
    const monitorOn = (timelineId: string): Load => {
      const monitored = new URLSearchParams({ timeline_id: timelineId, time_range: PARADOX_RANGE });
      return {
        name,
        method: 'GET',
        path: `/api/v1/monitor-paradox?${monitored}`,
        headers: { authorization: checker.auth },
      };
    };
    return {
      load: monitorOn(crowded),
      floor: monitorOn(empty),
      floorOnService: true,
      floorName: 'on an empty timeline',
    };
  }
  if (name === 'paradox-check') {
    const { checker, empty } = await paradoxTimelines(url, databaseUrl, 'cpu-checker');
    const check = (proposedChanges: readonly object[]): Load => ({
      name,
      method: 'POST',
      path: '/v1/paradox-checks',
      headers: { authorization: checker.auth },
      body: { timeline_id: empty, proposed_changes: proposedChanges },
    });
    return { load: check(HUNDRED_NAMES), floor: check([]), floorOnService: true, floorName: 'without names' };
  }
  const writers = await signUpMany(url, 'cpu-writer', WRITER_ACCOUNTS);
  const rotate = writers.map((each) => each.auth);
  const onFloor = (load: Load, path: string): Load => ({
    ...load,
    path,
    rotate: writers.map((each) => each.id),
    rotateHeader: FLOOR_ACCOUNT_HEADER,
  });
  const anchor = { method: 'POST', path: '/v1/anchors', rotate, body: { description: 'Bench anchor' } } as const;
  if (name === 'anchors') return { load: { name, ...anchor }, floor: onFloor({ name, ...anchor }, '/floor/anchor') };
  if (name === 'keyed-anchors') {
    const keyed: Load = { name, ...anchor, freshHeader: 'idempotency-key' };
    return { load: keyed, floor: onFloor(keyed, '/floor/anchor-keyed') };
  }
  if (name === 'fast-forward') {
    const forward: Load = { name, method: 'POST', path: '/v1/fast-forward', rotate, body: { duration: '1m' } };
    return { load: forward, floor: onFloor(forward, '/floor/fast-forward') };
  }
  const timeline = await call(url, writers[0].auth, 'POST', '/v1/timelines', {
    name: 'Bench timeline',
    destination_time: '1969-07-20T20:17:40Z',
  });
  const path = `/timeline/${String(timeline.id)}`;
  return {
    load: { name, method: 'GET', path, headers: { authorization: writers[0].auth } },
    floor: readOnFloor(name, `/floor${path}`, writers[0].id),
    modelled: readOnFloor(name, `/floor/modelled${path}`, writers[0].id),
  };
}

/** The most names a paradox check takes, each an event at an hour of its own. */
const HUNDRED_NAMES = Array.from({ length: 100 }, (_, n) => ({
  event: `Sighting ${n}`,
  time: new Date(Date.UTC(1900, 0, 1) + n * 3_600_000).toISOString(),
}));

/** A GET of the bare app's floors, for the account named. */
function readOnFloor(name: string, path: string, accountId: string): Load {
  return { name, method: 'GET', path, headers: { [FLOOR_ACCOUNT_HEADER]: accountId } };
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
