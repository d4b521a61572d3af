// A lock file that keeps two processes from opening the same PGlite data directory.
//
// Why: a real PostgreSQL refuses to start on a data directory another postmaster uses
// (postmaster.pid); PGlite has no such guard, and two PGlite instances writing one directory
// corrupt it. The lock is `<dataDir>.lock`, created exclusively (O_EXCL), holding the owner's pid
// and host. A lock left by a process that died is taken over; a live owner makes start fail.
import { hostname } from 'node:os';
import { readFileSync } from 'node:fs';
import { open, readFile, rm } from 'node:fs/promises';

export interface DataDirLock {
  /** The owner of a lock this one took over: a process that ended without stopping. */
  readonly tookOverFrom: LockOwner | null;
  release(): Promise<void>;
}

export interface LockOwner {
  pid: number;
  host: string;
}

/** Locks held by this process: its own pid in a lock file does not prove the lock is stale. */
const heldByThisProcess = new Set<string>();

export async function acquireDataDirLock(dataDir: string): Promise<DataDirLock> {
  const lockPath = `${dataDir}.lock`;
  if (heldByThisProcess.has(lockPath)) {
    throw new DataDirInUseError(dataDir, lockPath, 'this process');
  }
  const owner: LockOwner = { pid: process.pid, host: hostname() };
  let tookOverFrom: LockOwner | null = null;
  // Two rounds at most: the second follows the removal of a stale lock.
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const file = await open(lockPath, 'wx', 0o600);
      try {
        await file.writeFile(JSON.stringify(owner));
      } finally {
        await file.close();
      }
      heldByThisProcess.add(lockPath);
      let released = false;
      return {
        tookOverFrom,
        async release() {
          if (released) return;
          released = true;
          heldByThisProcess.delete(lockPath);
          await rm(lockPath, { force: true });
        },
      };
    } catch (error) {
      if (!isErrnoException(error) || error.code !== 'EEXIST') throw error;
    }
    const current = await readOwner(lockPath);
    if (current && isAlive(current)) {
      throw new DataDirInUseError(dataDir, lockPath, `process ${current.pid} on ${current.host}`);
    }
    tookOverFrom = current;
    await rm(lockPath, { force: true });
  }
  throw new DataDirInUseError(dataDir, lockPath, 'another process that started at the same moment');
}

export class DataDirInUseError extends Error {
  constructor(dataDir: string, lockPath: string, owner: string) {
    super(
      `The embedded database in ${dataDir} is already in use by ${owner}. ` +
        'Stop that process first (PGlite supports one process per data directory), ' +
        `or set DATA_DIR to another directory. If no such process exists, delete ${lockPath}.`,
    );
    this.name = 'DataDirInUseError';
  }
}

/** The owner recorded in the lock file; null when the file vanished or is unreadable garbage. */
async function readOwner(lockPath: string): Promise<LockOwner | null> {
  let text: string;
  try {
    text = await readFile(lockPath, 'utf8');
  } catch (error) {
    if (isErrnoException(error) && error.code === 'ENOENT') return null;
    throw error;
  }
  // A writer that crashed between creating and filling the file leaves it empty or partial.
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (
    typeof parsed === 'object' &&
    parsed !== null &&
    'pid' in parsed &&
    'host' in parsed &&
    typeof parsed.pid === 'number' &&
    typeof parsed.host === 'string'
  ) {
    return { pid: parsed.pid, host: parsed.host };
  }
  return null;
}

function isAlive(owner: LockOwner): boolean {
  // On another host (a shared volume) we cannot tell: assume it is alive.
  if (owner.host !== hostname()) return true;
  // Our own pid in the file (not one of our locks, checked before) is a leftover of an earlier
  // process that had the same pid, typically pid 1 in a restarted container.
  if (owner.pid === process.pid) return false;
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return isErrnoException(error) && error.code === 'EPERM';
  }
  return !isZombie(owner.pid);
}

/**
 * A process that has ended but whose parent has not reaped it yet (Linux's state Z): it answers
 * signal 0, but holds nothing any more. Elsewhere, or when /proc cannot say, it counts as alive.
 */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // pid (comm) state ...: comm may hold spaces and parentheses, the state follows the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return false;
  }
}

// Structural, not `instanceof Error`: errors from Node's core modules come from another realm
// under Jest, where `instanceof Error` is false for them.
function isErrnoException(error: unknown): error is NodeJS.ErrnoException {
  return typeof error === 'object' && error !== null && 'code' in error;
}
