import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdtemp, rm } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeLoopbackPort } from '../free-port';
import { type Owner, postgresUser } from '../postgres-user';
import { waitFor } from '../wait-for';

/** The deployment's start script, which renders deploy/pgbouncer/pgbouncer.ini.template. */
export const PGBOUNCER_START = join(__dirname, '../../../deploy/pgbouncer/start.sh');
/** Debian's pgbouncer (scripts/ensure-pgbouncer.sh installs it), or PGBOUNCER. */
export const PGBOUNCER = process.env.PGBOUNCER ?? '/usr/sbin/pgbouncer';

export interface PgBouncer {
  /** postgresql://user:password@127.0.0.1:<port>/<database>: the pooler, as the service's DATABASE_URL. */
  readonly url: string;
  /** Everything PgBouncer logged so far. */
  output(): string;
  stop(): Promise<void>;
}

export interface PoolerTarget {
  /** The PostgreSQL server (its host and port are used). */
  readonly serverUrl: string;
  readonly database: string;
  /** A login of the server; the pooler accepts it with `password` and logs in to the server as it. */
  readonly user: string;
  readonly password: string;
}

/**
 * Debian's pgbouncer in the foreground, configured by the deployment's own start.sh and template on a
 * free loopback port. PgBouncer refuses to run as root: as root, the test runs it as `postgres`.
 */
export async function startPgBouncer(target: PoolerTarget): Promise<PgBouncer> {
  if (!existsSync(PGBOUNCER)) {
    throw new Error(
      `The connection-pooler test needs pgbouncer at ${PGBOUNCER}: run 'bash scripts/ensure-pgbouncer.sh' as ` +
        "root, install Debian's 'pgbouncer' package, or set PGBOUNCER.",
    );
  }
  const dir = await mkdtemp(join(tmpdir(), 'tns-pgbouncer-'));
  const owner = await unprivilegedOwner();
  if (owner) await chown(dir, owner.uid, owner.gid);
  await chmod(dir, 0o700);
  try {
    // A free port can be taken by someone else before PgBouncer binds it: try another.
    for (let attempt = 1; ; attempt += 1) {
      const port = await freeLoopbackPort();
      const started = await tryStart(dir, port, target, owner);
      if (started.process) return running(dir, port, target, started.process, started.output);
      if (!/Address already in use/.test(started.output()) || attempt === 5)
        throw new Error(`pgbouncer did not start:\n${started.output()}`);
    }
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

function unprivilegedOwner(): Promise<Owner | undefined> {
  return process.getuid?.() === 0 ? postgresUser() : Promise.resolve(undefined);
}

async function tryStart(
  dir: string,
  port: number,
  target: PoolerTarget,
  owner: { uid: number; gid: number } | undefined,
): Promise<{ process?: ChildProcess; output: () => string }> {
  const server = new URL(target.serverUrl);
  const child = spawn('sh', [PGBOUNCER_START], {
    env: {
      PATH: process.env.PATH,
      PGBOUNCER,
      TNS_PGBOUNCER_DIR: dir,
      TNS_SERVER_HOST: server.hostname,
      TNS_SERVER_PORT: server.port || '5432',
      TNS_DATABASE: target.database,
      TNS_DATABASE_USER: target.user,
      TNS_DATABASE_PASSWORD: target.password,
      TNS_LISTEN_ADDR: '127.0.0.1',
      TNS_LISTEN_PORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...owner,
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<string>((resolve) => {
    child.once('exit', (code, signal) => resolve(`pgbouncer exited (${signal ?? code})`));
    child.once('error', (error) => resolve(`pgbouncer could not run: ${error.message}`));
  });
  const outcome = await Promise.race([exited, accepting(port)]);
  if (outcome === 'accepting' && child.exitCode === null) return { process: child, output: () => output };
  child.kill('SIGKILL');
  return { output: () => `${outcome}\n${output}` };
}

function accepting(port: number): Promise<'accepting'> {
  return waitFor(
    () =>
      new Promise<'accepting' | false>((resolve) => {
        const socket = createConnection({ host: '127.0.0.1', port });
        socket.once('connect', () => {
          socket.destroy();
          resolve('accepting');
        });
        socket.once('error', () => resolve(false));
      }),
    { what: `pgbouncer to accept connections on port ${port}`, timeoutMs: 10_000, intervalMs: 50 },
  );
}

function running(
  dir: string,
  port: number,
  target: PoolerTarget,
  child: ChildProcess,
  output: () => string,
): PgBouncer {
  const url = new URL(`postgresql://127.0.0.1:${port}/${target.database}`);
  url.username = target.user;
  url.password = target.password;
  return {
    url: url.toString(),
    output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
