// Ctrl-C in the terminal that runs `npm start`: the terminal sends SIGINT to the whole process group
// (npm and the service), and npm forwards it to the service too, so the service hears it twice. It
// must stop cleanly all the same: npm ends with 0, the embedded database's lock and connection-url
// are gone, and the next start finds a database that was stopped, not one to recover.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeLoopbackPort } from '../support/free-port';
import { waitFor } from '../support/wait-for';

const ROOT = join(__dirname, '../..');
/** The process groups started and not yet stopped: a failed test ends them all the same. */
const running = new Set<number>();
/** The first `npm start` compiles the service (tsc -b), on two busy cores in CI. */
jest.setTimeout(300_000);

interface Started {
  readonly url: string;
  output(): string;
  /** Ctrl-C as a terminal sends it: SIGINT to every process of the group. Resolves with npm's exit. */
  ctrlC(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `npm start` as a user runs it, in a process group of its own (the terminal's), on `dataDir`. */
async function npmStart(dataDir: string, port: number): Promise<Started> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' };
  delete env['DATABASE_URL'];
  delete env['NODE_OPTIONS'];
  const child = spawn('npm', ['start'], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const group = child.pid ?? 0;
  running.add(group);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  let ended = false;
  void closed.then(() => {
    ended = true;
    running.delete(group);
  });
  await waitFor(() => ended || /listening on http/.test(output), {
    what: 'npm start to listen',
    timeoutMs: 240_000,
    intervalMs: 100,
  });
  if (ended) throw new Error(`npm start ended before listening:\n${output}`);
  return {
    url: `http://127.0.0.1:${port}`,
    output: () => output,
    ctrlC: () => {
      process.kill(-group, 'SIGINT');
      return closed;
    },
  };
}

/**
 * Timelines written by `connections` clients, each one request at a time, until `stop` says; the ids
 * of those the service answered 201 for.
 */
function writeLoad(url: string, apiKey: string, connections: number): { written(): number; stop(): Promise<string[]> } {
  let stopping = false;
  const written: string[] = [];
  const client = async () => {
    while (!stopping) {
      await fetch(`${url}/v1/timelines`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Under load', destination_time: '1969-07-20T20:17:40Z' }),
      }).then(
        async (response) => {
          const body = (await response.json()) as { id?: string };
          if (response.status === 201 && body.id) written.push(body.id);
        },
        // The stop closes connections: a refused or reset request is what a stop does to a client.
        () => new Promise((resolve) => setTimeout(resolve, 50)),
      );
    }
  };
  const clients = Array.from({ length: connections }, client);
  return {
    written: () => written.length,
    async stop() {
      stopping = true;
      await Promise.all(clients);
      return written;
    },
  };
}

async function signUp(url: string): Promise<string> {
  const response = await fetch(`${url}/v1/accounts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'ctrl-c@example.com', password: 'stopped-cleanly-every-time' }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { api_key: string }).api_key;
}

describe('Ctrl-C in the terminal running npm start', () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'tns-ctrl-c-'));
  });
  afterAll(async () => {
    for (const group of running) process.kill(-group, 'SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  });

  it('stops cleanly, idle and under a write load, and the next start finds nothing to recover', async () => {
    const port = await freeLoopbackPort();
    const first = await npmStart(dataDir, port);
    const apiKey = await signUp(first.url);
    expect(await first.ctrlC()).toEqual({ code: 0, signal: null });
    expect(first.output()).toMatch(/SIGINT: no longer accepting connections/);
    // Nothing said of a .env that is not there.
    expect(first.output()).not.toMatch(/\.env not found/);
    expect(existsSync(join(dataDir, 'pgdata.lock'))).toBe(false);
    expect(existsSync(join(dataDir, 'connection-url'))).toBe(false);

    const second = await npmStart(dataDir, port);
    expect(second.output()).not.toMatch(/ended without stopping/);
    const load = writeLoad(second.url, apiKey, 8);
    // Ctrl-C in the middle of the load, once it has written.
    await waitFor(() => load.written() >= 20, { what: 'twenty writes', timeoutMs: 30_000 });
    expect(await second.ctrlC()).toEqual({ code: 0, signal: null });
    const written = await load.stop();
    expect(existsSync(join(dataDir, 'pgdata.lock'))).toBe(false);

    const third = await npmStart(dataDir, port);
    expect(third.output()).not.toMatch(/ended without stopping/);
    // Every write the load was told of is there after the stop.
    expect(written.length).toBeGreaterThan(0);
    for (const id of written) {
      const read = await fetch(`${third.url}/timeline/${id}`, { headers: { authorization: `Bearer ${apiKey}` } });
      expect(read.status).toBe(200);
    }
    expect(await third.ctrlC()).toEqual({ code: 0, signal: null });
  });
});
