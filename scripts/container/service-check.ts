// Starts a replayed image's CMD as its USER and walks through the API: healthy (by the image's own
// HEALTHCHECK), ready, an account opened, a timeline written and read back, a clean SIGTERM stop.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { argvOf, run, type ReplayedStage } from './stages';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = address && typeof address === 'object' ? address.port : null;
      server.close(() => (port === null ? reject(new Error('no port')) : resolve(port)));
    });
  });
}

async function call(url: string, expected: number, init: RequestInit = {}): Promise<Record<string, unknown>> {
  const response = await fetch(url, init);
  const text = await response.text();
  if (response.status !== expected) {
    throw new Error(`${init.method ?? 'GET'} ${url}: ${response.status} (expected ${expected}) ${text}`);
  }
  const body: unknown = JSON.parse(text);
  if (typeof body !== 'object' || body === null) throw new Error(`${url}: not a JSON object: ${text}`);
  return Object.fromEntries(Object.entries(body));
}

function json(body: unknown, key?: string): RequestInit {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (key !== undefined) headers.Authorization = `Bearer ${key}`;
  return { method: 'POST', headers, body: JSON.stringify(body) };
}

export async function checkService(
  image: ReplayedStage,
  settings: Record<string, string>,
  label: string,
): Promise<void> {
  if (!image.healthcheck) throw new Error(`stage ${image.name} has no HEALTHCHECK`);
  const { child, env, cwd, port, exit, log } = await startCommand(image, settings);
  let ended: string | null = null;
  void exit.then((how) => (ended = how));
  try {
    await waitHealthy(image, env, cwd, () => ended);
    const base = `http://127.0.0.1:${port}`;
    await call(`${base}/readyz`, 200);
    const signUp = { email: 'replay@example.com', password: 'replay-test-password' };
    const account = await call(`${base}/v1/accounts`, 201, json(signUp));
    const key = String(account.api_key);
    const newTimeline = { name: 'Replay', destination_time: '1969-07-20T20:17:40Z' };
    const timeline = await call(`${base}/v1/timelines`, 201, json(newTimeline, key));
    const read = await call(`${base}/timeline/${String(timeline.id)}`, 200, {
      headers: { Authorization: `Bearer ${key}` },
    });
    if (read.name !== 'Replay') throw new Error(`read the timeline back as ${JSON.stringify(read)}`);
    child.kill('SIGTERM');
    const how = await exit;
    if (how !== 'exit code 0') throw new Error(`the service ended with ${how} on SIGTERM`);
    console.log(`replay: ${label}: healthy, ready, account + timeline written and read back, stopped cleanly`);
  } catch (error) {
    console.error(`replay: ${label}: the service's output:\n${log()}`);
    throw error;
  } finally {
    if (ended === null) child.kill('SIGKILL');
  }
}

/** Starts the image's CMD as `docker run -e` would: the image's ENV, then `settings`; on loopback. */
async function startCommand(image: ReplayedStage, settings: Record<string, string>) {
  if (!image.command) throw new Error(`stage ${image.name} has no CMD`);
  const port = await freePort();
  const env = { ...image.env, HOST: '127.0.0.1', PORT: String(port), ...settings };
  const cwd = path.join(image.root, image.workdir);
  const [file, ...args] = argvOf(image.command);
  if (!file) throw new Error('empty CMD');
  const child = spawn(file, args, {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(image.user ? { uid: image.user.uid, gid: image.user.gid } : {}),
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exit = new Promise<string>((resolve) => {
    child.on('error', (error) => resolve(`failed to start: ${error.message}`));
    child.on('exit', (code, signal) => resolve(signal ?? `exit code ${code}`));
  });
  return { child, env, cwd, port, exit, log: () => output };
}

/** The image's CMD with `settings` must refuse to start: exit 1 within 30 s, saying `why`. */
export async function checkRefusal(
  image: ReplayedStage,
  settings: Record<string, string>,
  label: string,
  why: RegExp,
): Promise<void> {
  const { child, exit, log } = await startCommand(image, settings);
  const how = await Promise.race([exit, delay(30_000).then(() => 'still running after 30 s')]);
  if (how !== 'exit code 1' || !why.test(log())) {
    child.kill('SIGKILL');
    console.error(`replay: ${label}: the service's output:\n${log()}`);
    throw new Error(`${label}: expected a refusal (exit code 1, ${String(why)}), got ${how}`);
  }
  console.log(`replay: ${label}: refused to start, as it should (${why.source})`);
}

/** Runs the image's HEALTHCHECK command until it succeeds, as Docker's start period does. */
async function waitHealthy(
  image: ReplayedStage,
  env: Record<string, string>,
  cwd: string,
  ended: () => string | null,
): Promise<void> {
  const healthcheck = argvOf(image.healthcheck ?? { form: 'exec', argv: ['false'] });
  for (let attempt = 0; attempt < 240; attempt += 1) {
    const how = ended();
    if (how !== null) throw new Error(`the service ended at start with ${how}`);
    // A failing check means "not yet", as for Docker during the start period.
    const healthy = await run(healthcheck, { cwd, env, user: image.user, quiet: true }).then(
      () => true,
      () => false,
    );
    if (healthy) return;
    await delay(250);
  }
  throw new Error('the service did not become healthy in 60 s');
}
