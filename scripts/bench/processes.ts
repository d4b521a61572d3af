import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface Started {
  readonly url: string;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Spawns a server, its output kept for a failure message, and waits for its "listening on" line.
 * Not tests/support/service-process.ts: that one keeps all output for the tests to read, which a
 * benchmark's million request-log lines would turn into hundreds of megabytes in this process.
 */
export function startProcess(command: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<Started> {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let head = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`${args.join(' ')} did not start within 120 s:\n${head}`)), 120_000);
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    };
    child.once('exit', (code) => fail(new Error(`${args.join(' ')} exited with ${code}:\n${head}`)));
    const onData = (chunk: Buffer) => {
      // Keep the start for diagnosis; the request log that follows is read and dropped.
      if (head.length < 20_000) head += chunk.toString();
      const listening = /listening on (http:\/\/[^\s]+)/.exec(head);
      if (!listening) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      resolve({ url: listening[1].replace('localhost', '127.0.0.1'), child, stop: () => stop(child) });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
  });
}

/** Asks for a graceful stop and waits until the process is gone and its output closed. */
function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('close', () => resolve());
    child.kill('SIGTERM');
  });
}

/** Resident memory of a process and of each of its children (the worker processes), in MiB, from /proc. */
export function residentMiB(pid: number): number[] {
  return processTree(pid).map((each) => statusKiB(each, 'VmRSS') / 1024);
}

/** The most a process has held resident since it started (the kernel's high-water mark), in MiB. */
export function peakResidentMiB(pid: number): number {
  return statusKiB(pid, 'VmHWM') / 1024;
}

function childrenOf(pid: number): number[] {
  try {
    const text = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
    return text === ''
      ? []
      : text
          .split(/\s+/)
          .map(Number)
          .flatMap((child) => [child, ...childrenOf(child)]);
  } catch {
    return []; // the process ended between two reads
  }
}

function statusKiB(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0; // the process ended between two reads
  }
}

/** Clock ticks a second, the unit of /proc/<pid>/stat's CPU times; asked once, when first needed. */
let ticksPerSecond: number | undefined;

/** A process and its children (the worker processes). */
export function processTree(pid: number): number[] {
  return [pid, ...childrenOf(pid)];
}

/** The processes whose command is `name` (PostgreSQL's: `postgres`), from /proc. */
export function processesNamed(name: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => readIfRunning(`/proc/${pid}/comm`)?.trim() === name)
    .map(Number);
}

/** Every PostgreSQL process on this machine, whose CPU a benchmark reads; none: the server is elsewhere, a mistake. */
export function postgresProcesses(): number[] {
  const pids = processesNamed('postgres');
  if (pids.length === 0) throw new Error('no PostgreSQL process on this machine: its CPU is read from /proc');
  return pids;
}

/** CPU time, user and system, each process has used so far, in seconds; processes gone are left out. */
export function cpuSeconds(pids: readonly number[]): Map<number, number> {
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());
  const seconds = new Map<number, number>();
  for (const pid of pids) {
    const stat = readIfRunning(`/proc/${pid}/stat`);
    if (stat === undefined) continue;
    // The fields after the command, which is in parentheses and may hold any character; utime and
    // stime are the 14th and 15th fields of the line, the 12th and 13th after the command.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    seconds.set(pid, (Number(fields[11]) + Number(fields[12])) / ticksPerSecond);
  }
  return seconds;
}

/**
 * CPU seconds used between two readings of `cpuSeconds`: a process started in between counts from
 * zero; one that ended in between is left out (its last part is lost: the figure can come out low,
 * never negative).
 */
export function usedBetween(before: Map<number, number>, after: Map<number, number>): number {
  let used = 0;
  for (const [pid, seconds] of after) used += seconds - (before.get(pid) ?? 0);
  return used;
}

/** What `path` holds, or undefined when its process has ended. */
function readIfRunning(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ESRCH')
      return undefined;
    throw error;
  }
}

/**
 * Asks a probe loaded into `server` (memory-probe.js, gc-probe.js) for its figures: SIGUSR2, then
 * the line `<name> {...}` it writes to standard error, parsed.
 */
export function askProbe(server: Started, name: string): Promise<unknown> {
  const pattern = new RegExp(`${name} (\\{.*\\})\\n`);
  return new Promise((resolve) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      const line = pattern.exec(text);
      if (!line) return;
      server.child.stderr?.off('data', onData);
      resolve(JSON.parse(line[1]));
    };
    server.child.stderr?.on('data', onData);
    server.child.kill('SIGUSR2');
  });
}
