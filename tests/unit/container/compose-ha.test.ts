// docker-compose.yml's `ha` profile and deploy/ha, read as Docker Compose and Docker would (no
// Docker engine here to run them): every node gets what patroni.sh requires, HAProxy names each node
// where its PostgreSQL and its Patroni listen, the nodes find etcd where it listens, and the
// instance reaches the primary through HAProxy with the nodes' login. failover.server.test.ts runs
// the same scripts and templates with Debian's packages.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { parseDockerfile } from '../../../scripts/container/dockerfile';

const ROOT = path.join(__dirname, '../../..');
const HA_DIR = path.join(ROOT, 'deploy/ha');

interface Service {
  profiles?: string[];
  build?: string;
  command?: string[];
  environment?: Record<string, string>;
}
// Compose resolves YAML merge keys (`<<: *ha-node`), as the yaml package does when asked.
const compose = parse(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
};
const services = compose.services;
const patroniScript = readFileSync(path.join(HA_DIR, 'patroni.sh'), 'utf8');
const haproxyScript = readFileSync(path.join(HA_DIR, 'haproxy.sh'), 'utf8');
const nodes = ['ha-node1', 'ha-node2'];

/** The variables a start script refuses to run without: `: "${NAME:?...}"`. */
function required(script: string): string[] {
  return [...script.matchAll(/"\$\{(TNS_[A-Z_]+):\?/g)].map((match) => match[1]);
}

/** host:port as a URL would read it. */
function hostPort(value: string): { host: string; port: string } {
  const [host = '', port = ''] = value.split(':');
  return { host, port };
}

it('runs the cluster and its instance only in the ha profile', () => {
  for (const name of ['ha-etcd', ...nodes, 'ha-proxy', 'api-ha']) expect(services[name]?.profiles).toEqual(['ha']);
});

it('gives each node what patroni.sh requires, its own name, and etcd where it listens', () => {
  const etcdArgs = services['ha-etcd']?.command ?? [];
  const advertised = etcdArgs.find((arg) => arg.startsWith('--advertise-client-urls='))?.split('=')[1] ?? '';
  expect(required(patroniScript).length).toBeGreaterThan(0);
  for (const name of nodes) {
    const env = services[name]?.environment ?? {};
    for (const variable of required(patroniScript))
      expect({ name, variable, value: env[variable] }).toEqual({ name, variable, value: expect.any(String) });
    expect(env.TNS_HA_NODE).toBe(name);
    expect(hostPort(env.TNS_HA_PG_ADDRESS ?? '').host).toBe(name);
    expect(hostPort(env.TNS_HA_REST_ADDRESS ?? '').host).toBe(name);
    expect(`http://${env.TNS_HA_ETCD_HOSTS}`).toBe(advertised);
  }
});

it('leads HAProxy to each node where its PostgreSQL and its Patroni listen', () => {
  const proxy = services['ha-proxy']?.environment ?? {};
  for (const variable of required(haproxyScript)) expect(proxy[variable]).toEqual(expect.any(String));
  const servers = (proxy.TNS_HA_SERVERS ?? '').split(' ').map((server) => {
    const [name = '', address = ''] = server.split('=');
    const [host, pgPort, restPort] = address.split(':');
    return { name, host, pgPort, restPort };
  });
  expect(servers.map((server) => server.name)).toEqual(nodes);
  for (const server of servers) {
    const env = services[server.name]?.environment ?? {};
    expect(server.host).toBe(server.name);
    expect(server.pgPort).toBe(hostPort(env.TNS_HA_PG_LISTEN ?? '').port);
    expect(server.restPort).toBe(hostPort(env.TNS_HA_REST_LISTEN ?? '').port);
  }
});

it('points the instance at HAProxy with the nodes login', () => {
  const url = new URL(services['api-ha']?.environment?.DATABASE_URL ?? '');
  const proxy = services['ha-proxy']?.environment ?? {};
  const node = services['ha-node1']?.environment ?? {};
  expect(url.hostname).toBe('ha-proxy');
  expect(url.port).toBe(hostPort(proxy.TNS_HA_PROXY_LISTEN ?? '').port);
  expect(url.username).toBe(node.TNS_HA_SUPERUSER);
  expect(url.password).toBe(node.TNS_HA_SUPERUSER_PASSWORD);
});

it('builds an image whose files exist, that runs as postgres', () => {
  const [stage] = parseDockerfile(readFileSync(path.join(HA_DIR, 'Dockerfile'), 'utf8'));
  const copies = stage.instructions.flatMap((instruction) => (instruction.kind === 'COPY' ? [instruction] : []));
  const copied = copies.flatMap((copy) => copy.sources.map((source) => path.posix.join(copy.destination, source)));
  for (const copy of copies)
    for (const source of copy.sources) expect(existsSync(path.join(HA_DIR, source))).toBe(true);
  for (const file of ['patroni.sh', 'patroni.yml.template', 'haproxy.sh', 'haproxy.cfg.template'])
    expect(copied).toContain(`/opt/ha/${file}`);
  expect(services['ha-proxy']?.command).toEqual(['/opt/ha/haproxy.sh']);
  const user = stage.instructions.find((instruction) => instruction.kind === 'USER');
  expect(user?.kind === 'USER' && user.user).toBe('postgres');
});
