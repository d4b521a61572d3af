// `npm run bench:first-start`: what a first start costs, the migrations included: the time from the
// process's start to its "listening on" line, and the resident memory at its peak and once started.
// On the embedded database (a new data folder each round) and, with DATABASE_URL, on a new
// database of that server. BENCH_ROUNDS rounds (default 5); medians and spread.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { peakResidentMiB, residentMiB } from './processes';
import { startService } from './service';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SERVER = process.env.DATABASE_URL?.trim();

interface Start {
  readonly ms: number;
  readonly peakMiB: number;
  readonly startedMiB: number;
}

async function firstStart(databaseUrl: string, dataDir: string): Promise<Start> {
  const began = performance.now();
  const service = await startService(databaseUrl, 1, { env: { DATA_DIR: dataDir } });
  const ms = performance.now() - began;
  const pid = service.child.pid ?? 0;
  const start = { ms, peakMiB: peakResidentMiB(pid), startedMiB: residentMiB(pid)[0] ?? 0 };
  await service.stop();
  return start;
}

async function onServer(server: string, round: number): Promise<Start> {
  const name = `tns_bench_first_start_${process.pid}_${round}`;
  const admin = new Client({ connectionString: server });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  try {
    const url = new URL(server);
    url.pathname = `/${name}`;
    return await firstStart(url.toString(), '');
  } finally {
    await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
    await admin.end();
  }
}

async function embedded(): Promise<Start> {
  const folder = mkdtempSync(join(tmpdir(), 'tns-bench-first-start-'));
  try {
    return await firstStart('', folder);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

function summary(label: string, starts: readonly Start[]): string {
  const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  const spread = (values: number[]) => `${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)}`;
  const column = (pick: (start: Start) => number) => {
    const values = starts.map(pick);
    return `${median([...values]).toFixed(0)} (${spread(values)})`;
  };
  return (
    `${label}: first start ${column((start) => start.ms)} ms, peak resident ${column((start) => start.peakMiB)} MiB, ` +
    `resident once started ${column((start) => start.startedMiB)} MiB`
  );
}

async function main(): Promise<void> {
  const starts: { embedded: Start[]; server: Start[] } = { embedded: [], server: [] };
  for (let round = 0; round < ROUNDS; round += 1) {
    starts.embedded.push(await embedded());
    if (SERVER) starts.server.push(await onServer(SERVER, round));
  }
  console.log(summary('embedded', starts.embedded));
  if (SERVER) console.log(summary('PostgreSQL server', starts.server));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
