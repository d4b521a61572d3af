import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { freeLoopbackPort } from './free-port';
import { createStudioBFFClient } from '@prisma/studio-core/data/bff';
import { createPostgresAdapter } from '@prisma/studio-core/data/postgres-core';

const ROOT = join(__dirname, '../..');
const START_TIMEOUT_MS = 90_000;

export interface StudioProcess {
  /** What `npm run db:studio` printed until Studio served its page. */
  readonly output: string;
  /** The adapter Studio's page runs, talking to this Studio's backend (POST /bff). */
  readonly adapter: ReturnType<typeof createPostgresAdapter>;
  stop(): Promise<void>;
}

/** `npm run db:studio` (scripts/db-studio.ts, one process) with `env`, once Studio serves. */
export async function startStudioProcess(env: Record<string, string>): Promise<StudioProcess> {
  const port = await freeLoopbackPort();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'scripts/db-studio.ts'), '--port', String(port), '--browser', 'none'],
    { cwd: ROOT, env: { ...process.env, NODE_OPTIONS: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  let output = '';
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`Studio did not start within ${START_TIMEOUT_MS / 1000} s:\n${output}`)),
      START_TIMEOUT_MS,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (!output.includes('Prisma Studio is running at')) return;
      clearTimeout(timer);
      resolve();
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`db:studio exited (${code}) before serving:\n${output}`));
    });
  });
  try {
    await ready;
  } catch (error) {
    await stop();
    throw error;
  }
  const executor = createStudioBFFClient({ url: `http://127.0.0.1:${port}/bff` });
  return { output, adapter: createPostgresAdapter({ executor }), stop };
}
