// A PostgreSQL cluster as deploy/ha/ runs it, on this machine's loopback: one etcd, Patroni nodes
// each with its PostgreSQL (Debian's 15), and HAProxy leading to the current primary, each started
// by the deployment's own scripts. Everything runs as `postgres` (PostgreSQL refuses root) in a
// folder of its own, on free ports. A node is lost as a machine is: its Patroni and its postmaster
// killed together (Patroni alone would restart a killed postmaster in place).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeLoopbackPort } from '../free-port';
import { type Owner, postgresUser } from '../postgres-user';
import { waitFor } from '../wait-for';

const DEPLOY = join(__dirname, '../../../deploy/ha');
const PROGRAMS = [
  '/usr/bin/etcd',
  '/usr/bin/patroni',
  '/usr/sbin/haproxy',
  '/usr/lib/postgresql/15/bin/pg_rewind',
  // The cluster behind deploy/pgbouncer too.
  '/usr/sbin/pgbouncer',
];
const SUPERUSER_PASSWORD = 'tns-ha-superuser';
/** The login of Patroni's REST API for what changes the cluster (its reads are open). */
const REST_LOGIN = { user: 'patroni', password: 'tns-ha-rest' };
const REST_AUTHORIZATION = `Basic ${Buffer.from(`${REST_LOGIN.user}:${REST_LOGIN.password}`).toString('base64')}`;

/**
 * Why this machine cannot run the cluster (not root, a program missing), or null when it can; `uid`
 * and `exists` say who runs it and what is installed.
 */
export function clusterUnavailable(
  uid = process.getuid?.(),
  exists: (program: string) => boolean = existsSync,
): string | null {
  if (uid !== 0) return 'it runs PostgreSQL as the postgres user, which needs root';
  const missing = PROGRAMS.filter((program) => !exists(program));
  return missing.length ? `${missing.join(', ')} missing: run 'bash scripts/ensure-ha.sh' as root` : null;
}

/** What a test of the cluster does here: runs, is skipped with its reason, or fails with it. */
export type ClusterRun =
  { readonly run: true } | { readonly run: false; readonly fails: boolean; readonly reason: string };

/**
 * Where TNS_REQUIRE_TOOLS is set (CI, which installs the programs and runs as root) every suite must
 * run: one that cannot fails, saying why, rather than pass as skipped. Elsewhere it is skipped with
 * the reason. `unavailable` is clusterUnavailable()'s answer.
 */
export function clusterRun(unavailable: string | null, env: NodeJS.ProcessEnv = process.env): ClusterRun {
  if (unavailable === null) return { run: true };
  return { run: false, fails: Boolean(env.TNS_REQUIRE_TOOLS), reason: unavailable };
}

/** Declares a test, as Jest's `it` does (the cluster's tests are async). */
type Declare = (name: string, test: () => Promise<void>, timeout?: number) => void;

/**
 * Jest's `it` for the tests of the cluster, as `here` says: `it`, `it.skip`, or one that declares
 * each test failing with the reason. `jestIt` is Jest's own unless a test of this gives another.
 */
export function clusterTest(here: ClusterRun, jestIt: Declare & { readonly skip: Declare } = it): Declare {
  if (here.run) return jestIt;
  if (!here.fails) return jestIt.skip;
  return (name, _test, timeout) =>
    jestIt(
      name,
      () => {
        throw new Error(`it cannot run here, and TNS_REQUIRE_TOOLS asks that every suite runs: ${here.reason}`);
      },
      timeout,
    );
}

export interface Member {
  readonly name: string;
  readonly role: 'leader' | 'sync_standby' | 'replica' | 'standby_leader';
  readonly state: string;
  readonly timeline?: number;
  readonly lag?: number | string;
}

interface Node {
  readonly name: string;
  readonly pgPort: number;
  readonly restPort: number;
  process?: ChildProcess;
  output: string;
}

export class PatroniCluster {
  private constructor(
    private readonly dir: string,
    private readonly owner: Owner,
    private readonly etcdPort: number,
    private readonly nodes: Node[],
    readonly proxyPort: number,
    private readonly others: ChildProcess[],
  ) {}

  /**
   * Starts etcd, `size` nodes (the first bootstraps the cluster) and HAProxy; resolves once a
   * synchronous standby follows.
   */
  static async start(size = 2): Promise<PatroniCluster> {
    const dir = await mkdtemp(join(tmpdir(), 'tns-ha-'));
    const owner = await postgresUser();
    await chown(dir, owner.uid, owner.gid);
    await chmod(dir, 0o700);
    const etcdPort = await freeLoopbackPort();
    const nodes: Node[] = [];
    for (let n = 1; n <= size; n++)
      nodes.push({
        name: `node${n}`,
        pgPort: await freeLoopbackPort(),
        restPort: await freeLoopbackPort(),
        output: '',
      });
    const cluster = new PatroniCluster(dir, owner, etcdPort, nodes, await freeLoopbackPort(), []);
    try {
      await cluster.startEtcd();
      for (const node of nodes) {
        cluster.startNode(node.name);
        // The first bootstraps alone; the others copy it once it leads.
        if (node === nodes[0]) await cluster.waitForRoles({ leader: node.name }, 60_000);
      }
      await cluster.waitForRoles({ syncStandby: true }, 60_000);
      cluster.startProxy();
      // HAProxy 2.6 counts a server up until its first check fails (3.1's init-state changes that),
      // and takes them in turn: only when each of several connections in a row reaches the primary
      // has the standby been marked down.
      let inARow = 0;
      await waitFor(
        async () => {
          inARow = (await cluster.primaryThroughProxy().catch(() => false)) ? inARow + 1 : 0;
          return inARow >= 2 * size;
        },
        { what: 'HAProxy to lead to the primary alone', timeoutMs: 10_000, intervalMs: 100 },
      );
      return cluster;
    } catch (error) {
      await cluster.stop();
      throw new Error(`the cluster did not start: ${String(error)}\n${cluster.output()}`, { cause: error });
    }
  }

  /** The service's DATABASE_URL: the superuser, through HAProxy. */
  get url(): string {
    return `postgresql://postgres:${SUPERUSER_PASSWORD}@127.0.0.1:${this.proxyPort}/postgres`;
  }

  /** The login the cluster's URLs use: a pooler in front logs in as it. */
  get superuser(): { readonly user: string; readonly password: string } {
    return { user: 'postgres', password: SUPERUSER_PASSWORD };
  }

  /** A node's own PostgreSQL, not through HAProxy. */
  nodeUrl(name: string): string {
    return `postgresql://postgres:${SUPERUSER_PASSWORD}@127.0.0.1:${this.node(name).pgPort}/postgres`;
  }

  /** The members as Patroni's REST API of a running node reports them. */
  async members(): Promise<Member[]> {
    for (const node of this.nodes.filter((each) => each.process && each.process.exitCode === null)) {
      try {
        const response = await fetch(`http://127.0.0.1:${node.restPort}/cluster`, {
          signal: AbortSignal.timeout(1000),
        });
        const body = (await response.json()) as { members: Member[] };
        return body.members;
      } catch {
        // That node cannot answer now: ask the next.
      }
    }
    return [];
  }

  /** The leader and its synchronous standby, once both are running and streaming. */
  async waitForRoles(
    wanted: { leader?: string; syncStandby?: string | true },
    timeoutMs: number,
  ): Promise<{ leader: string; syncStandby?: string }> {
    return waitFor(
      async () => {
        const members = await this.members();
        const leader = members.find((member) => member.role === 'leader' && member.state === 'running');
        const standby = members.find(
          (member) => member.role === 'sync_standby' && (member.state === 'streaming' || member.state === 'running'),
        );
        if (!leader || (wanted.leader && leader.name !== wanted.leader)) return null;
        if (wanted.syncStandby && (!standby || (wanted.syncStandby !== true && standby.name !== wanted.syncStandby)))
          return null;
        return { leader: leader.name, syncStandby: standby?.name };
      },
      { what: `the cluster's roles ${JSON.stringify(wanted)}`, timeoutMs, intervalMs: 100 },
    );
  }

  /** Kills a node as a lost machine: its Patroni and its postmaster at once, with SIGKILL. */
  async loseNode(name: string): Promise<void> {
    const node = this.node(name);
    const postmaster = Number((await readFile(join(this.dataDir(name), 'postmaster.pid'), 'utf8')).split('\n')[0]);
    const exited = new Promise((resolve) => node.process?.once('exit', resolve));
    node.process?.kill('SIGKILL');
    process.kill(postmaster, 'SIGKILL');
    await exited;
    node.process = undefined;
  }

  /** Starts (again) the node's Patroni: a former primary rejoins as a standby, by pg_rewind. */
  startNode(name: string): void {
    const node = this.node(name);
    node.process = this.spawnAsPostgres('sh', [join(DEPLOY, 'patroni.sh')], {
      TNS_HA_NODE: name,
      TNS_HA_ETCD_HOSTS: `127.0.0.1:${this.etcdPort}`,
      TNS_HA_DIR: join(this.dir, name),
      TNS_HA_PG_LISTEN: `127.0.0.1:${node.pgPort}`,
      TNS_HA_REST_LISTEN: `127.0.0.1:${node.restPort}`,
      TNS_HA_DATA_DIR: this.dataDir(name),
      TNS_HA_SUPERUSER_PASSWORD: SUPERUSER_PASSWORD,
      TNS_HA_REPLICATION_PASSWORD: 'tns-ha-replication',
      TNS_HA_REST_USER: REST_LOGIN.user,
      TNS_HA_REST_PASSWORD: REST_LOGIN.password,
      TNS_HA_MAX_CONNECTIONS: '100',
    });
    node.process.stdout?.on('data', (chunk: Buffer) => (node.output += chunk.toString()));
    node.process.stderr?.on('data', (chunk: Buffer) => (node.output += chunk.toString()));
  }

  /** A planned switchover to `candidate`, through Patroni's REST API. */
  async switchover(leader: string, candidate: string): Promise<void> {
    const response = await fetch(`http://127.0.0.1:${this.node(leader).restPort}/switchover`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: REST_AUTHORIZATION },
      body: JSON.stringify({ leader, candidate }),
    });
    if (response.status !== 200) throw new Error(`switchover refused: ${response.status} ${await response.text()}`);
  }

  /**
   * Turns the cluster's synchronous mode on or off (Patroni's dynamic configuration), and waits until
   * the standby is synchronous, or asynchronous, accordingly.
   */
  async setSynchronous(on: boolean): Promise<void> {
    const { leader } = await this.waitForRoles({}, 30_000);
    const response = await fetch(`http://127.0.0.1:${this.node(leader).restPort}/config`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', authorization: REST_AUTHORIZATION },
      body: JSON.stringify({ synchronous_mode: on }),
    });
    if (response.status !== 200) throw new Error(`configuration refused: ${response.status} ${await response.text()}`);
    await waitFor(
      async () => {
        const members = await this.members();
        const standbys = members.filter((member) => member.role !== 'leader');
        return standbys.length > 0 && standbys.every((member) => (member.role === 'sync_standby') === on);
      },
      { what: `the standby ${on ? '' : 'a'}synchronous`, timeoutMs: 30_000, intervalMs: 100 },
    );
  }

  /** What a node logged since it started (Patroni, and PostgreSQL through it). */
  log(name: string): string {
    return this.node(name).output;
  }

  async stop(): Promise<void> {
    const running = [...this.others, ...this.nodes.map((node) => node.process)].filter(
      (child): child is ChildProcess => child !== undefined && child.exitCode === null && child.signalCode === null,
    );
    await Promise.all(
      running.map(
        (child) =>
          new Promise<void>((resolve) => {
            const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
            child.once('exit', () => {
              clearTimeout(timer);
              resolve();
            });
            child.kill('SIGTERM');
          }),
      ),
    );
    // A postmaster whose Patroni was killed may outlive it.
    for (const node of this.nodes) {
      const pid = await readFile(join(this.dataDir(node.name), 'postmaster.pid'), 'utf8').catch(() => '');
      if (pid) killIfAlive(Number(pid.split('\n')[0]));
    }
    await rm(this.dir, { recursive: true, force: true });
  }

  private async primaryThroughProxy(): Promise<boolean> {
    const { Client } = await import('pg');
    const client = new Client({ connectionString: this.url, connectionTimeoutMillis: 1000 });
    await client.connect();
    try {
      const { rows } = await client.query<{ recovery: boolean }>('SELECT pg_is_in_recovery() AS recovery');
      return !rows[0].recovery;
    } finally {
      await client.end();
    }
  }

  private async startEtcd(): Promise<void> {
    const peerPort = await freeLoopbackPort();
    const client = `http://127.0.0.1:${this.etcdPort}`;
    const peer = `http://127.0.0.1:${peerPort}`;
    this.others.push(
      this.spawnAsPostgres('etcd', [
        '--name=etcd1',
        `--data-dir=${join(this.dir, 'etcd')}`,
        `--listen-client-urls=${client}`,
        `--advertise-client-urls=${client}`,
        `--listen-peer-urls=${peer}`,
        `--initial-advertise-peer-urls=${peer}`,
        `--initial-cluster=etcd1=${peer}`,
      ]),
    );
    await waitFor(
      () =>
        fetch(`${client}/health`).then(
          (response) => response.ok,
          () => false,
        ),
      {
        what: 'etcd to answer',
        timeoutMs: 20_000,
        intervalMs: 100,
      },
    );
  }

  private startProxy(): void {
    this.others.push(
      this.spawnAsPostgres('sh', [join(DEPLOY, 'haproxy.sh')], {
        TNS_HA_PROXY_DIR: join(this.dir, 'haproxy'),
        TNS_HA_PROXY_LISTEN: `127.0.0.1:${this.proxyPort}`,
        TNS_HA_SERVERS: this.nodes.map((node) => `${node.name}=127.0.0.1:${node.pgPort}:${node.restPort}`).join(' '),
      }),
    );
  }

  private spawnAsPostgres(command: string, args: string[], env: Record<string, string> = {}): ChildProcess {
    const child = spawn(command, args, {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: this.dir, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      ...this.owner,
    });
    // Read, so a full pipe never stops it; the nodes keep theirs (startNode).
    child.stdout?.resume();
    child.stderr?.resume();
    return child;
  }

  private dataDir(name: string): string {
    return join(this.dir, name, 'data');
  }

  private node(name: string): Node {
    const node = this.nodes.find((each) => each.name === name);
    if (!node) throw new Error(`no node ${name}`);
    return node;
  }

  private output(): string {
    return this.nodes.map((node) => `--- ${node.name}\n${node.output.slice(-3000)}`).join('\n');
  }
}

/** A postmaster that outlived its Patroni is ended; one already gone is no error. */
function killIfAlive(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}
