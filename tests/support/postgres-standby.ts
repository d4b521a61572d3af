// A PostgreSQL primary and its hot standby of our own, Debian's 15 (or POSTGRES_BINDIR's), on free
// loopback ports in a folder of their own: initdb, then pg_basebackup -R (standby.signal and the
// primary's address written for it), each server started in the foreground. Trust logins, loopback
// only, no fsync: a throwaway pair for a test, stopped and removed by `stop`. As root, it runs as
// `postgres` (PostgreSQL refuses root).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chmod, chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client, type QueryResultRow } from 'pg';
import { freeLoopbackPort } from './free-port';
import { type Owner, postgresUser } from './postgres-user';
import { waitFor } from './wait-for';

/** Where initdb, pg_basebackup and postgres are. */
export const POSTGRES_BINDIR = process.env.POSTGRES_BINDIR ?? '/usr/lib/postgresql/15/bin';

const STEP_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 10_000;

export interface PrimaryAndStandby {
  /** postgresql://postgres@127.0.0.1:<port>/postgres of the primary. */
  readonly primaryUrl: string;
  /** The same on the standby, which refuses every write (SQLSTATE 25006). */
  readonly standbyUrl: string;
  /** Resolves once the standby has replayed everything the primary has written so far. */
  caughtUp(): Promise<void>;
  stop(): Promise<void>;
}

export async function startPrimaryAndStandby(): Promise<PrimaryAndStandby> {
  const dir = await mkdtemp(join(tmpdir(), 'tns-standby-'));
  const owner = process.getuid?.() === 0 ? await postgresUser() : undefined;
  if (owner) await chown(dir, owner.uid, owner.gid);
  await chmod(dir, 0o700);
  const servers: ChildProcess[] = [];
  const stop = async () => {
    // The standby first: stopped after it, the primary would wait for its WAL sender to finish.
    await Promise.all(servers.reverse().map(stopServer));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const primary = { data: join(dir, 'primary'), port: await freeLoopbackPort() };
    const standby = { data: join(dir, 'standby'), port: await freeLoopbackPort() };
    await run(owner, 'initdb', ['-D', primary.data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
    servers.push(startServer(owner, dir, primary));
    const primaryUrl = await accepting(primary.port);
    const backup = ['-D', standby.data, '-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres'];
    await run(owner, 'pg_basebackup', [...backup, '-R', '-X', 'stream', '-c', 'fast', '--no-sync']);
    servers.push(startServer(owner, dir, standby));
    const standbyUrl = await accepting(standby.port);
    return { primaryUrl, standbyUrl, caughtUp: () => caughtUp(primaryUrl, standbyUrl), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function run(owner: Owner | undefined, program: string, args: string[]): Promise<void> {
  await promisify(execFile)(join(POSTGRES_BINDIR, program), args, { ...owner, timeout: STEP_TIMEOUT_MS });
}

function startServer(owner: Owner | undefined, dir: string, server: { data: string; port: number }): ChildProcess {
  const settings = {
    port: server.port,
    listen_addresses: '127.0.0.1',
    unix_socket_directories: dir,
    fsync: 'off',
    shared_buffers: '16MB',
    max_connections: 40,
  };
  const args = Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`]);
  const child = spawn(join(POSTGRES_BINDIR, 'postgres'), ['-D', server.data, ...args], {
    stdio: 'ignore',
    ...owner,
  });
  child.once('error', () => undefined);
  return child;
}

/** The server's URL once it accepts a connection and answers. */
async function accepting(port: number): Promise<string> {
  const url = `postgresql://postgres@127.0.0.1:${port}/postgres`;
  await waitFor(
    () =>
      ask(url, 'SELECT 1').then(
        () => true,
        () => false,
      ),
    {
      what: `PostgreSQL to accept connections on port ${port}`,
      timeoutMs: STEP_TIMEOUT_MS,
      intervalMs: 100,
    },
  );
  return url;
}

async function caughtUp(primaryUrl: string, standbyUrl: string): Promise<void> {
  const [{ lsn }] = await ask<{ lsn: string }>(primaryUrl, 'SELECT pg_current_wal_lsn()::text AS lsn');
  await waitFor(
    async () => {
      const [row] = await ask<{ behind: boolean }>(
        standbyUrl,
        'SELECT pg_last_wal_replay_lsn() < $1::pg_lsn AS behind',
        [lsn],
      );
      return row?.behind === false;
    },
    { what: 'the standby to replay what the primary wrote', timeoutMs: STEP_TIMEOUT_MS, intervalMs: 50 },
  );
}

async function ask<T extends QueryResultRow>(url: string, statement: string, values: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return (await client.query<T>(statement, values)).rows;
  } finally {
    await client.end();
  }
}

/** PostgreSQL's fast shutdown (SIGINT), and SIGKILL if it has not ended by the bound. */
async function stopServer(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null || server.pid === undefined) return;
  const exited = new Promise((resolve) => server.once('exit', resolve));
  server.kill('SIGINT');
  const timer = setTimeout(() => server.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}
