// `npm run bench:embedded-memory`: where the resident memory of a service on the embedded database
// goes (PGlite, PostgreSQL compiled to WebAssembly, in the service's process: no DATABASE_URL). At
// three moments: started on a fresh data folder (initdb and every migration), started again on that
// folder, and after BENCH_REQUESTS API requests (default 4,000). /proc/<pid>/smaps splits what is
// resident; what only the process knows (the size of each WebAssembly memory, V8's heap) is reported
// from inside it by memory-probe.js, after a full garbage collection. docs/operations.md has the figures.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { askProbe, cpuSeconds, peakResidentMiB, residentMiB, type Started } from './processes';
import { MONITORED_PLACE, MONITORED_RANGE } from './seed';
import { call, signUp, startService } from './service';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 4_000);
/** Requests in flight at once: the embedded database runs one statement at a time anyway. */
const CONCURRENCY = 4;
const ACCOUNTS = 10;
const MiB = 2 ** 20;

/** What memory-probe.js reports, in bytes. */
interface Probe {
  readonly v8Heap: number;
  readonly arrayBuffers: number;
  readonly wasmMemories: readonly number[];
}

interface Mapping {
  readonly bytes: number;
  readonly perms: string;
  readonly file: boolean;
  residentMiB: number;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'embedded-memory-'));
  try {
    const rows = [await withService(dataDir, (fresh) => breakdown('fresh data folder (initdb, migrations)', fresh))];
    const cpuPerRequest = await withService(dataDir, async (service) => {
      rows.push(await breakdown('the same folder, started again', service));
      const cpu = await load(service);
      rows.push(await breakdown(`after ${REQUESTS} requests`, service));
      return cpu;
    });
    console.log(
      '| MiB resident | total | peak so far | WebAssembly memories (of their size) | V8 heap | machine code ' +
        '| malloc and the rest (of which ArrayBuffers) | mapped files |\n|---|---:|---:|---:|---:|---:|---:|---:|',
    );
    for (const row of rows) console.log(row);
    console.log(`\nService CPU per request during the load: ${cpuPerRequest} µs (Node ${process.version}).`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function withService<T>(dataDir: string, use: (service: Started) => Promise<T>): Promise<T> {
  const service = await start(dataDir);
  try {
    return await use(service);
  } finally {
    await service.stop();
  }
}

function start(dataDir: string): Promise<Started> {
  return startService('', 1, {
    // --expose-gc for the probe's collection, which leaves the live memory only.
    nodeFlags: ['--expose-gc', '--require', join(__dirname, 'memory-probe.js')],
    env: { DATA_DIR: dataDir },
  });
}

/** One row of the table: the process's resident memory split by where it goes. */
async function breakdown(moment: string, service: Started): Promise<string> {
  const pid = service.child.pid ?? 0;
  const probed = await probe(service);
  const mappings = readMappings(pid);
  const sum = (each: readonly Mapping[]) => each.reduce((total, mapping) => total + mapping.residentMiB, 0);
  const anonymous = mappings.filter((mapping) => !mapping.file);
  // A WebAssembly memory is one mapping of exactly its size (the rest of its reservation is not
  // accessible); each mapping is counted once.
  const unclaimed = [...anonymous];
  const wasm = probed.wasmMemories.map((bytes) => {
    const index = unclaimed.findIndex((mapping) => mapping.bytes === bytes && mapping.perms.startsWith('rw'));
    if (index < 0 && bytes >= MiB) throw new Error(`no mapping of ${bytes} bytes for a WebAssembly memory`);
    return index < 0 ? 0 : unclaimed.splice(index, 1)[0].residentMiB;
  });
  const wasmResident = wasm.reduce((total, each) => total + each, 0);
  const wasmSize = probed.wasmMemories.reduce((total, each) => total + each, 0) / MiB;
  const v8Heap = probed.v8Heap / MiB;
  const code = sum(anonymous.filter((mapping) => mapping.perms.includes('x')));
  const rest = sum(anonymous) - wasmResident - v8Heap - code;
  const cells = [
    Math.max(...residentMiB(pid)),
    peakResidentMiB(pid),
    `${Math.round(wasmResident)} (${Math.round(wasmSize)})`,
    v8Heap,
    code,
    `${Math.round(rest)} (${Math.round(probed.arrayBuffers / MiB)})`,
    sum(mappings.filter((mapping) => mapping.file)),
  ].map((cell) => (typeof cell === 'number' ? String(Math.round(cell)) : cell));
  return `| ${moment} | ${cells.join(' | ')} |`;
}

/** The figures of the service's memory-probe.js. */
async function probe(service: Started): Promise<Probe> {
  return (await askProbe(service, 'memory-probe')) as Probe;
}

/** Each mapping of the process: its size, permissions, whether a file backs it, what of it is resident. */
function readMappings(pid: number): Mapping[] {
  const mappings: Mapping[] = [];
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ (\d+)/.exec(line);
    if (head) {
      const bytes = parseInt(head[2], 16) - parseInt(head[1], 16);
      mappings.push({ bytes, perms: head[3], file: head[4] !== '0', residentMiB: 0 });
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    const last = mappings[mappings.length - 1];
    if (rss && last) last.residentMiB = Number(rss[1]) / 1024;
  }
  return mappings;
}

/**
 * Sign-ups, then REQUESTS requests, CONCURRENCY at a time: a write, a clock change, a listing and a
 * read in turn, each round of four for the next account. Returns the service's CPU time per request
 * of the latter, in µs.
 */
async function load(service: Started): Promise<number> {
  const { url } = service;
  const accounts = await Promise.all(Array.from({ length: ACCOUNTS }, (_, n) => signUp(url, `memory-${n}`)));
  const listing = new URLSearchParams({ location: MONITORED_PLACE, time_range: MONITORED_RANGE }).toString();
  const kinds = [
    (auth: string) => call(url, auth, 'POST', '/v1/anchors', { description: 'Memory anchor' }),
    (auth: string) => call(url, auth, 'POST', '/v1/fast-forward', { duration: '1m' }),
    (auth: string) => call(url, auth, 'GET', `/v1/monitor-events?${listing}`, undefined),
    (auth: string) => call(url, auth, 'GET', '/timelines', undefined),
  ];
  const pid = service.child.pid ?? 0;
  const before = cpuSeconds([pid]).get(pid) ?? 0;
  let sent = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let n = sent++; n < REQUESTS; n = sent++) {
        await kinds[n % kinds.length](accounts[Math.floor(n / kinds.length) % ACCOUNTS].auth);
      }
    }),
  );
  const used = (cpuSeconds([pid]).get(pid) ?? 0) - before;
  return Math.round((used * 1e6) / REQUESTS);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
