// `npm run bench:builds -- <other checkout> [load] [passes]`: this build's requests a second against
// another build's (a checkout, built, with its own node_modules), the two running side by side on
// databases of their own and driven in turn, pass after pass, the order alternating, each build
// started first for half the passes (fresh services and databases for each half). The machine's
// drift then moves both alike, and each pass's ratio (this build's over the other's, the pair
// measured back to back) says what the change costs, beside each build's CPU time per request (its
// process, read from /proc: steadier than the rate on a shared machine) and PostgreSQL's (every
// process named `postgres`: the server must run here; its shared background work, the other
// build's database included, falls on both builds alike as the order alternates).
// docs/performance.md, "Comparing two builds".
// BENCH_FIRST_BUILD=<checkout>: that build in this one's place (two past commits compared).
// Loads: fast-forward, anchors, keyed-anchors (write-loads.ts, 200 accounts in turn), timeline.
import { resolve } from 'node:path';
import type { Load } from './measure';
import { drive, spread } from './measure';
import { cpuSeconds, postgresProcesses, processTree, type Started, usedBetween } from './processes';
import { analyzeDatabase, createBenchDatabase } from './seed';
import { call, signUpMany, startService } from './service';
import { writeLoads } from './write-loads';

const ADMIN_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const ACCOUNTS = 200;
const LOADS = ['fast-forward', 'anchors', 'keyed-anchors', 'timeline'] as const;
type LoadName = (typeof LOADS)[number];

const isLoadName = (name: string): name is LoadName => LOADS.some((each) => each === name);

async function main(): Promise<void> {
  const [other, name = 'fast-forward', passesText = '8'] = process.argv.slice(2);
  if (!other) throw new Error('name the other build: a checkout, built (npm run build)');
  if (!isLoadName(name)) throw new Error(`name one load of: ${LOADS.join(', ')}`);
  const passes = Number(passesText);
  if (!Number.isInteger(passes) || passes < 2) throw new Error('the passes: a whole number, 2 or more');
  const firstRoot = process.env.BENCH_FIRST_BUILD ? resolve(process.env.BENCH_FIRST_BUILD) : undefined;
  const mine = figuresOf(firstRoot);
  const theirs = figuresOf(resolve(other));
  // The build started first ran 4-5% slower than the very same build started second (docs/performance.md,
  // "Comparing two builds"): each build is started first for half the passes, so that falls on both.
  const firstHalf = Math.ceil(passes / 2);
  await runPasses(name, [mine, theirs], firstHalf, (pass) => report(pass, mine, theirs));
  await runPasses(name, [theirs, mine], passes - firstHalf, (pass) => report(firstHalf + pass, mine, theirs));
  const rateRatios = mine.rates.map((rate, pass) => rate / theirs.rates[pass]);
  const cpuRatios = mine.micros.map((micros, pass) => micros / theirs.micros[pass]);
  const pgRatios = mine.pgMicros.map((micros, pass) => micros / theirs.pgMicros[pass]);
  const run = `${name}, ${CONNECTIONS} connections, ${passes} passes of ${SECONDS} s, Node ${process.version}`;
  console.log(
    `${run}: this build ${spread(mine.rates)} a second, the other ${spread(theirs.rates)}, ratio ` +
      `${spread(rateRatios, 3)}; CPU a request ${spread(mine.micros)} µs against ${spread(theirs.micros)}, ` +
      `ratio ${spread(cpuRatios, 3)}; PostgreSQL's CPU a request ${spread(mine.pgMicros)} µs against ` +
      `${spread(theirs.pgMicros)}, ratio ${spread(pgRatios, 3)}`,
  );
}

/** Each pass's figures of one build, over both halves. */
interface BuildFigures {
  /** Its checkout; undefined for this one. */
  readonly root: string | undefined;
  readonly label: string;
  readonly rates: number[];
  readonly micros: number[];
  /** PostgreSQL's CPU time per request: every process named `postgres` here, so the server must run here. */
  readonly pgMicros: number[];
}

function figuresOf(root: string | undefined): BuildFigures {
  return { root, label: root ? `the build in ${root}` : 'this build', rates: [], micros: [], pgMicros: [] };
}

/**
 * Starts the builds in the order given, each on a fresh database with its load prepared, and drives
 * them in turn for `passes` passes, the order alternating; stops them after.
 */
async function runPasses(
  name: LoadName,
  startOrder: readonly BuildFigures[],
  passes: number,
  passed: (pass: number) => void,
): Promise<void> {
  const builds: Build[] = [];
  const started: Started[] = [];
  try {
    for (const [n, figures] of startOrder.entries()) {
      const databaseUrl = await createBenchDatabase(ADMIN_URL, `time_navigation_bench_builds_${n}`);
      const service = await startService(databaseUrl, 1, { root: figures.root });
      started.push(service);
      const load = await prepare(service.url, name);
      await analyzeDatabase(databaseUrl);
      // The figures' arrays themselves: this half's passes add to the build's.
      builds.push({ ...figures, service, load });
    }
    for (const { service, load } of builds) await drive(service.url, load, CONNECTIONS, 3); // warm-up, not counted
    const [first, second] = builds;
    for (let pass = 0; pass < passes; pass++) {
      for (const build of pass % 2 === 0 ? [first, second] : [second, first]) await measurePass(build);
      passed(pass);
    }
  } finally {
    await Promise.all(started.map((service) => service.stop()));
  }
}

function report(pass: number, mine: BuildFigures, theirs: BuildFigures): void {
  console.log(
    `pass ${pass + 1}: ${Math.round(mine.rates[pass])} against ${Math.round(theirs.rates[pass])} a second, ` +
      `${Math.round(mine.micros[pass])} against ${Math.round(theirs.micros[pass])} µs of CPU a request, ` +
      `PostgreSQL's ${Math.round(mine.pgMicros[pass])} against ${Math.round(theirs.pgMicros[pass])}`,
  );
}

/** One build as a half's passes measure it: its service and load, and where its figures go. */
interface Build extends BuildFigures {
  readonly service: Started;
  readonly load: Load;
}

/** One pass of the build's load: its requests a second, and its service's and PostgreSQL's CPU time per request. */
async function measurePass({ label, service, load, rates, micros, pgMicros }: Build): Promise<void> {
  const processes = processTree(service.child.pid ?? 0);
  const before = cpuSeconds(processes);
  const pgBefore = cpuSeconds(postgresProcesses());
  const result = await drive(service.url, load, CONNECTIONS, SECONDS);
  const used = usedBetween(before, cpuSeconds(processes));
  // Read again: a backend or an autovacuum worker started during the pass counts from zero.
  const pgUsed = usedBetween(pgBefore, cpuSeconds(postgresProcesses()));
  const failures = result.non2xx + result.errors + result.timeouts;
  if (failures > 0) throw new Error(`${label}: ${failures} requests failed`);
  rates.push(result.requests.average);
  micros.push((used * 1e6) / result.requests.total);
  pgMicros.push((pgUsed * 1e6) / result.requests.total);
}

async function prepare(url: string, name: LoadName): Promise<Load> {
  const writers = await signUpMany(url, 'in-turn-writer', ACCOUNTS);
  const loads = writeLoads(writers.map((each) => each.auth));
  if (name === 'fast-forward') return loads.fastForward;
  if (name === 'anchors') return loads.anchors;
  if (name === 'keyed-anchors') return loads.keyedAnchors;
  const [reader] = writers;
  const timeline = await call(url, reader.auth, 'POST', '/v1/timelines', {
    name: 'In turn',
    destination_time: '1969-07-20T20:17:40Z',
  });
  return { name, method: 'GET', path: `/timeline/${String(timeline.id)}`, headers: { authorization: reader.auth } };
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
