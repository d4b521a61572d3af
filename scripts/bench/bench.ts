// `npm run bench`: the service on a real PostgreSQL, side by side with a bare Express 5 app, at 10
// and 50 connections, with 1 and 2 worker processes. Prints the figures, their ratios to bare
// Express and to each load's floor (its statements alone behind the bare app: floors.ts), then the
// goals of docs/performance.md, writes them to test-output/bench/, and exits 1 when a goal is missed.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { FLOOR_ACCOUNT_HEADER } from './floors';
import { measure, type Figures, type Load } from './measure';
import { residentMiB, type Started } from './processes';
import { call, signUp, signUpMany, startBare, startService } from './service';
import {
  createBenchDatabase,
  MONITORED_PLACE,
  MONITORED_RANGE,
  PARADOX_RANGE,
  paradoxTimelines,
  seedEvents,
} from './seed';
import { measureNoisyNeighbour, NOISY_NEIGHBOUR, type NoisyNeighbourFigures } from './noisy-neighbour';
import { CROWD, crowdLines, crowdVerdicts, measureCrowd, type CrowdFigures } from './crowd';
import { measureWebhooks, webhookLines, webhookLoad, webhookVerdicts, type WebhookFigures } from './webhooks';
import { measureStreams, type StreamFigures } from './streams';
import { writeLoads } from './write-loads';
import {
  checkTargets,
  EVENT_STREAMS,
  HELD_STREAMS,
  floorName,
  formatReport,
  MONITOR_EVENTS,
  PARADOX_CHECKS,
  paradoxLoad,
  type Row,
  withFloors,
} from './report';

const ROOT = join(__dirname, '../..');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = [10, 50] as const;
const WORKERS = (process.env.BENCH_WORKERS ?? '1,2').split(',').map(Number);
/** Accounts the writes are spread over (each one's writes queue behind each other by design). */
const WRITER_ACCOUNTS = 200;
/**
 * BENCH_ONLY=<regular expression>: measure only the loads whose names match (to profile one), and
 * the floors of those loads.
 */
const ONLY = new RegExp(process.env.BENCH_ONLY ?? '');
const selected = (load: Load) => ONLY.test(load.name) || (load.floorOf !== undefined && ONLY.test(load.floorOf));
const LISTING_FLOOR = floorName(MONITOR_EVENTS);
/** The yardsticks: a bare Express 5 app answering a small JSON object, and echoing a JSON body. */
const BARE: Record<'GET' | 'POST', Load> = {
  GET: { name: 'bare Express GET', method: 'GET', path: '/bare' },
  POST: { name: 'bare Express POST echo', method: 'POST', path: '/bare', body: { description: 'Bench anchor' } },
};
const ADMIN_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

async function main(): Promise<void> {
  const databaseUrl = await createBenchDatabase(ADMIN_URL, 'time_navigation_bench');
  // A database of its own: the service's must hold nothing but its schema, or migrating it fails.
  const bareDatabaseUrl = await createBenchDatabase(ADMIN_URL, 'time_navigation_bench_bare');
  const bare = await startBare({ calibrationDatabaseUrl: bareDatabaseUrl, serviceDatabaseUrl: databaseUrl });
  const rows: Row[] = [];
  let peakMiB = 0;
  let streams: StreamFigures | null = null;
  let noisy: NoisyNeighbourFigures | null = null;
  let crowd: CrowdFigures | null = null;
  const webhooks: WebhookFigures[] = [];
  try {
    rows.push(...(await measureBare(bare.url)));
    let loads: Load[] | undefined;
    for (const workers of WORKERS) {
      const service = await startService(databaseUrl, workers);
      try {
        loads ??= (await prepare(service.url, databaseUrl)).filter(selected);
        for (const load of loads) {
          // A floor is the bare app's: once is enough.
          if (load.onBare && workers !== WORKERS[0]) continue;
          const server = load.onBare ? bare : service;
          for (const connections of CONNECTIONS) {
            // The yardstick right before each figure: this machine's speed drifts by half over a
            // run (other tenants), so a bare figure from minutes earlier would skew the ratio.
            const yardstick = await measure(bare.url, BARE[load.method], connections, SECONDS);
            const sampler = sampleMemory(service);
            const figures = await measure(server.url, load, connections, SECONDS);
            peakMiB = Math.max(peakMiB, sampler.stop());
            const ratio = figures.requestsPerSecond / yardstick.requestsPerSecond;
            // A floor is one bare process, whatever the service's workers.
            const processes = load.onBare ? 1 : workers;
            rows.push({
              subject: load.name,
              workers: processes,
              connections,
              figures,
              ratio,
              bare: yardstick.requestsPerSecond,
              floor: null,
              floorRatio: null,
            });
            console.error(
              `measured ${load.name} (${processes} worker${processes > 1 ? 's' : ''}, ${connections} ` +
                `connections): ${figures.requestsPerSecond} req/s`,
            );
          }
        }
      } finally {
        await service.stop();
      }
    }
    // On a fresh process of one worker, after the loads: what it holds is the streams' alone.
    if (ONLY.test(EVENT_STREAMS)) {
      const service = await startService(databaseUrl, 1);
      try {
        streams = await measureStreams(service, { streams: HELD_STREAMS });
        console.error(`measured ${EVENT_STREAMS}: ${streams.caughtUp} streams, ${streams.residentMiB.toFixed(0)} MiB`);
      } finally {
        await service.stop();
      }
    }
    // On a fresh process too, with the default limits: one account's share beside another's.
    if (ONLY.test(NOISY_NEIGHBOUR)) noisy = await measureNoisyNeighbour(databaseUrl, SECONDS);
    // And again: many accounts or addresses, each within its limits, beside a quiet one.
    if (ONLY.test(CROWD)) crowd = await measureCrowd(databaseUrl, SECONDS);
    // Each on a fresh service with a local receiver: on the server, then on the embedded database.
    for (const url of [databaseUrl, ''])
      if (ONLY.test(webhookLoad(url))) webhooks.push(await measureWebhooks(url, SECONDS));
  } finally {
    await bare.stop();
  }
  const machine =
    `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, ` +
    `Node ${process.version}`;
  const measured = withFloors(rows);
  const verdicts = [
    ...checkTargets(measured, peakMiB, streams, noisy),
    ...crowdVerdicts(crowd),
    ...webhookVerdicts(webhooks),
  ];
  const report = formatReport({
    machine,
    seconds: SECONDS,
    rows: measured,
    peakMiB,
    streams,
    noisy,
    more: [...crowdLines(crowd), ...webhookLines(webhooks)],
    verdicts,
  });
  console.log(report);
  const out = join(ROOT, 'test-output/bench');
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'latest.md'), `${report}\n`);
  const figures = { machine, seconds: SECONDS, rows: measured, peakMiB, streams, noisy, crowd, webhooks, verdicts };
  writeFileSync(join(out, 'latest.json'), `${JSON.stringify(figures, null, 2)}\n`);
  if (verdicts.some((verdict) => !verdict.met)) process.exitCode = 1;
}

async function measureBare(url: string) {
  const rows: Row[] = [];
  const figures = { GET: {}, POST: {} } as Record<'GET' | 'POST', Record<number, Figures>>;
  for (const load of Object.values(BARE)) {
    for (const connections of CONNECTIONS) {
      const measured = await measure(url, load, connections, SECONDS);
      figures[load.method][connections] = measured;
      rows.push({
        subject: load.name,
        workers: 1,
        connections,
        figures: measured,
        ratio: 1,
        bare: measured.requestsPerSecond,
        floor: null,
        floorRatio: null,
      });
      console.error(`measured ${load.name} (${connections} connections): ${measured.requestsPerSecond} req/s`);
    }
  }
  // Calibration, not targets: bare Express plus one node-postgres round trip per request.
  const calibration: Load[] = [
    { name: 'bare Express + one SELECT (node-postgres)', method: 'GET', path: '/bare/select' },
    {
      name: 'bare Express + one INSERT (node-postgres)',
      method: 'POST',
      path: '/bare/insert',
      body: { description: 'Bench anchor' },
    },
  ];
  for (const load of calibration.filter((each) => ONLY.test(each.name))) {
    for (const connections of CONNECTIONS) {
      const measured = await measure(url, load, connections, SECONDS);
      const bare = figures[load.method][connections].requestsPerSecond;
      rows.push({
        subject: load.name,
        workers: 1,
        connections,
        figures: measured,
        ratio: measured.requestsPerSecond / bare,
        bare,
        floor: null,
        floorRatio: null,
      });
      console.error(`measured ${load.name} (${connections} connections): ${measured.requestsPerSecond} req/s`);
    }
  }
  return rows;
}

/** Writers and the million-event account, made through the API, and what each load sends. */
async function prepare(url: string, databaseUrl: string): Promise<Load[]> {
  const writers = await signUpMany(url, 'writer', WRITER_ACCOUNTS);
  const writer = writers[0];
  const rotate = writers.map((each) => each.auth);
  const watcher = await signUp(url, 'watcher');
  // The seed takes a minute: only for a run that measures the listing.
  if (ONLY.test(MONITOR_EVENTS) || ONLY.test(LISTING_FLOOR)) {
    console.error('seeding 1,000,000 events ...');
    await seedEvents(databaseUrl, watcher.id);
  }
  const timeline = await call(url, writer.auth, 'POST', '/v1/timelines', {
    name: 'Bench timeline',
    destination_time: '1969-07-20T20:17:40Z',
  });
  const monitored = new URLSearchParams({ location: MONITORED_PLACE, time_range: MONITORED_RANGE });
  const floorAccounts = writers.map((each) => each.id);
  // A write's floor: the same body (and a fresh key for a keyed write) for the same accounts, to the
  // bare app's route doing its statements.
  const floorOf = (load: Load, path: string): Load => ({
    ...load,
    name: floorName(load.name),
    onBare: true,
    floorOf: load.name,
    path,
    rotate: floorAccounts,
    rotateHeader: FLOOR_ACCOUNT_HEADER,
  });
  const { anchors, keyedAnchors, fastForward } = writeLoads(rotate);
  const timelineRead: Load = {
    name: 'GET /timeline/{id}',
    method: 'GET',
    path: `/timeline/${String(timeline.id)}`,
    headers: { authorization: writer.auth },
  };
  const paradoxChecks = await prepareParadoxChecks(url, databaseUrl);
  return [
    anchors,
    floorOf(anchors, '/floor/anchor'),
    keyedAnchors,
    floorOf(keyedAnchors, '/floor/anchor-keyed'),
    fastForward,
    floorOf(fastForward, '/floor/fast-forward'),
    timelineRead,
    {
      name: floorName(timelineRead.name),
      onBare: true,
      floorOf: timelineRead.name,
      method: 'GET',
      path: `/floor/timeline/${String(timeline.id)}`,
      headers: { [FLOOR_ACCOUNT_HEADER]: writer.id },
    },
    {
      name: MONITOR_EVENTS,
      method: 'GET',
      path: `/v1/monitor-events?${monitored.toString()}`,
      headers: { authorization: watcher.auth },
    },
    {
      name: LISTING_FLOOR,
      onBare: true,
      floorOf: MONITOR_EVENTS,
      method: 'GET',
      path: `/floor/listing?${monitored.toString()}`,
      headers: { [FLOOR_ACCOUNT_HEADER]: watcher.id },
    },
    ...paradoxChecks,
  ];
}

/** The paradox checks on an empty timeline and on a crowded one, of an account of their own. */
async function prepareParadoxChecks(url: string, databaseUrl: string): Promise<Load[]> {
  if (!PARADOX_CHECKS.some((check) => ONLY.test(check))) return [];
  const { checker, empty, crowded } = await paradoxTimelines(url, databaseUrl, 'checker');
  const headers = { authorization: checker.auth };
  return [empty, crowded].flatMap((timelineId) => {
    const crowd = timelineId === crowded;
    const monitored = new URLSearchParams({ timeline_id: timelineId, time_range: PARADOX_RANGE });
    return [
      {
        name: paradoxLoad('GET /v1/check-paradox', crowd),
        method: 'GET' as const,
        path: `/v1/check-paradox?timeline_id=${timelineId}`,
        headers,
      },
      {
        name: paradoxLoad('GET /api/v1/monitor-paradox', crowd),
        method: 'GET' as const,
        path: `/api/v1/monitor-paradox?${monitored.toString()}`,
        headers,
      },
    ];
  });
}

/** The largest resident memory of any one process of the service during a run, read every 250 ms. */
function sampleMemory(service: Started) {
  let peak = 0;
  const pid = service.child.pid ?? 0;
  const read = () => {
    peak = Math.max(peak, ...residentMiB(pid));
  };
  const timer = setInterval(read, 250);
  return {
    stop: () => {
      clearInterval(timer);
      read();
      return peak;
    },
  };
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
