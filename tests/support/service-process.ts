import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export interface ServiceProcess {
  readonly url: string;
  stop(): Promise<number | null>;
}

const ROOT = join(__dirname, '../..');

/** Starts the real service (src/main.ts) as its own process, as production runs it, and waits until it listens. */
export function startServiceProcess(env: Record<string, string>): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), join(ROOT, 'src/main.ts')], {
    cwd: ROOT,
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', NODE_OPTIONS: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`service did not start within 60 s:\n${output}`)), 60_000);
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    };
    child.on('exit', (code) => fail(new Error(`service exited with ${code} at start:\n${output}`)));
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const listening = /listening on (http:\/\/\S+)/.exec(output);
      if (!listening) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      resolve({ url: listening[1].replace('localhost', '127.0.0.1'), stop: () => stop(child) });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
  });
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}
