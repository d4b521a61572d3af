import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface ServiceProcess {
  readonly url: string;
  /** The server's own pid: a signal sent here reaches the service, not a launcher in front of it. */
  readonly pid: number;
  /** Everything the process printed so far (stdout and stderr). */
  output(): string;
  /** Resolves once the output contains `text` (with the output so far); rejects if the process exits first. */
  printed(text: string | RegExp): Promise<string>;
  /** Settles when the process has exited, however it ends. */
  readonly exited: Promise<ProcessExit>;
  /** SIGTERM, the orderly shutdown; resolves with the exit code. */
  stop(): Promise<number | null>;
  /** Sends `signal` (SIGKILL for a crash) and resolves when the process has exited. */
  kill(signal: NodeJS.Signals): Promise<ProcessExit>;
}

const ROOT = join(__dirname, '../..');
/** How long a start may take to listen before it counts as hung: most starts take a few seconds. */
const START_TIMEOUT_MS = 60_000;

/**
 * Starts the real service (src/main.ts) as its own process and waits until it listens. It runs as
 * `node --import tsx src/main.ts`, one process: the tsx CLI would fork a child to serve, and a
 * SIGKILL of the CLI's pid would leave that child serving. With WEB_CONCURRENCY > 1 the pid is the
 * cluster primary, and its workers end when it does.
 */
export function startServiceProcess(
  env: Record<string, string>,
  startTimeoutMs = START_TIMEOUT_MS,
): Promise<ServiceProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/main.ts')], {
    cwd: ROOT,
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', NODE_OPTIONS: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const waiting = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    for (const check of [...waiting]) check();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<ProcessExit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  // Output may still be in the pipes when 'exit' fires; 'close' follows once they are drained.
  const drained = new Promise<void>((resolve) => child.once('close', () => resolve()));

  const printed = (text: string | RegExp): Promise<string> =>
    new Promise((resolve, reject) => {
      const found = () => (typeof text === 'string' ? output.includes(text) : text.test(output));
      const check = () => {
        if (!found()) return;
        waiting.delete(check);
        resolve(output);
      };
      waiting.add(check);
      check();
      void drained.then(() => {
        if (!waiting.has(check)) return;
        waiting.delete(check);
        reject(new Error(`the service exited before printing ${String(text)}:\n${output}`));
      });
    });

  const started = printed(/listening on (http:\/\/\S+)/);
  const timeout = new Promise<never>((_, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`service did not start within ${startTimeoutMs / 1000} s:\n${output}`)),
      startTimeoutMs,
    );
    void started.finally(() => clearTimeout(timer)).catch(() => undefined);
  });
  return Promise.race([started, timeout]).then(
    (text) => {
      const url = (/listening on (http:\/\/\S+)/.exec(text) ?? [])[1].replace('localhost', '127.0.0.1');
      const kill = (signal: NodeJS.Signals) => signalAndWait(child, signal, exited);
      return {
        url,
        pid: child.pid ?? -1,
        output: () => output,
        printed,
        exited,
        stop: async () => (await kill('SIGTERM')).code,
        kill,
      };
    },
    async (error: unknown) => {
      await signalAndWait(child, 'SIGKILL', exited);
      throw error;
    },
  );
}

async function signalAndWait(
  child: ChildProcess,
  signal: NodeJS.Signals,
  exited: Promise<ProcessExit>,
): Promise<ProcessExit> {
  if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  return exited;
}

/** Runs the service to its exit, for a start that must fail: one that listens instead is killed. */
export async function runServiceToExit(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  // A start that should have failed did not: it is ended, and the test sees why.
  const { code, output } = await killServiceWhen(env, { printed: /listening on/ });
  return { code, output };
}

/**
 * Starts the service and kills it (SIGKILL, as a lost machine or an impatient operator) when `when`
 * says so: `afterMs` after its start, or at once when its output so far matches `printed`;
 * answers what it printed, and whether it was listening yet.
 */
export function killServiceWhen(
  env: Record<string, string>,
  when: { readonly afterMs: number } | { readonly printed: RegExp },
): Promise<{ code: number | null; output: string; listened: boolean }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/main.ts')], {
    cwd: ROOT,
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', NODE_OPTIONS: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    if ('printed' in when && when.printed.test(output)) child.kill('SIGKILL');
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const timer = 'afterMs' in when ? setTimeout(() => child.kill('SIGKILL'), when.afterMs) : undefined;
  // 'close' comes once the process has exited and its output is read to the end.
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output, listened: output.includes('listening on') });
    });
  });
}
