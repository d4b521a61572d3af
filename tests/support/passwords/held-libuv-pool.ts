import { execFileSync } from 'node:child_process';
import { mkdtempSync, openSync, closeSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * Holds every thread of libuv's pool, the one Node's asynchronous crypto (`crypto.scrypt`), file
 * system and DNS calls share, at no CPU cost: each is left opening a FIFO for reading, which blocks
 * until a writer opens it. Whatever still completes meanwhile did not need that pool.
 */
export function holdLibuvPool(): { release(): Promise<void> } {
  const folder = mkdtempSync(path.join(tmpdir(), 'libuv-held-'));
  const fifo = path.join(folder, 'fifo');
  execFileSync('mkfifo', [fifo]);
  const threads = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
  const readers = Array.from({ length: threads }, () => open(fifo, 'r'));
  return {
    async release() {
      // One writer lets every reader's open through.
      const writer = openSync(fifo, 'w');
      const handles = await Promise.all(readers);
      await Promise.all(handles.map((handle) => handle.close()));
      closeSync(writer);
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
