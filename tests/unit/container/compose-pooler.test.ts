// docker-compose.yml's `pooler` profile and deploy/pgbouncer, read as Docker Compose and Docker would
// (no Docker engine here to run them): the pooled instance reaches PgBouncer where it listens, the
// server itself where PostgreSQL listens, with the login PgBouncer is given, and the budget it
// declares matches what the profile runs. connection-pooler.server.test.ts runs the same
// start.sh and template with Debian's pgbouncer.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { parseDockerfile } from '../../../scripts/container/dockerfile';

const ROOT = path.join(__dirname, '../../..');
const POOLER_DIR = path.join(ROOT, 'deploy/pgbouncer');

interface Service {
  profiles?: string[];
  build?: string;
  environment?: Record<string, string>;
}
const compose = parse(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8')) as {
  services: Record<string, Service>;
};
const services = compose.services;
const pooled = services['api-pooled']?.environment ?? {};
const pgbouncer = services.pgbouncer?.environment ?? {};
const startScript = readFileSync(path.join(POOLER_DIR, 'start.sh'), 'utf8');
const template = readFileSync(path.join(POOLER_DIR, 'pgbouncer.ini.template'), 'utf8');

/** A default start.sh gives a variable: `export NAME="${NAME:-value}"`. */
function startDefault(name: string): string | undefined {
  return new RegExp(`^export ${name}="\\$\\{${name}:-([^}]*)\\}"$`, 'm').exec(startScript)?.[1];
}

it('runs PgBouncer and the pooled instance only in the pooler profile, and the rest always', () => {
  expect(services.pgbouncer?.profiles).toEqual(['pooler']);
  expect(services['api-pooled']?.profiles).toEqual(['pooler']);
  expect(services.api?.profiles).toBeUndefined();
  expect(services.postgres?.profiles).toBeUndefined();
});

it('points the pooled instance at PgBouncer for requests and at PostgreSQL for sessions, with one login', () => {
  const viaPooler = new URL(pooled.DATABASE_URL ?? '');
  const direct = new URL(pooled.DATABASE_DIRECT_URL ?? '');
  expect(viaPooler.hostname).toBe('pgbouncer');
  expect(viaPooler.port).toBe(startDefault('TNS_LISTEN_PORT'));
  expect(direct.hostname).toBe(pgbouncer.TNS_SERVER_HOST);
  expect(direct.port || '5432').toBe(startDefault('TNS_SERVER_PORT'));
  for (const url of [viaPooler, direct]) {
    expect(url.pathname).toBe(`/${pgbouncer.TNS_DATABASE}`);
    expect(url.username).toBe(pgbouncer.TNS_DATABASE_USER);
    expect(url.password).toBe(pgbouncer.TNS_DATABASE_PASSWORD);
  }
  // The direct URL is the one the direct instance uses.
  expect(pooled.DATABASE_DIRECT_URL).toBe(services.api?.environment?.DATABASE_URL);
});

it('gives PgBouncer every setting start.sh requires', () => {
  const required = [...startScript.matchAll(/"\$\{(TNS_[A-Z_]+):\?/g)].map((match) => match[1]);
  expect(required.length).toBeGreaterThan(0);
  for (const name of required) expect({ name, value: pgbouncer[name] }).toEqual({ name, value: expect.any(String) });
});

it('declares the budget the profile runs: two instances, and the server connections PgBouncer opens', () => {
  // The instances on this PostgreSQL, straight or through PgBouncer (the `ha` profile's has its own).
  const onThisServer = ['postgres', 'pgbouncer'];
  const instances = Object.values(services).filter((service) =>
    onThisServer.includes(new URL(service.environment?.DATABASE_URL ?? 'x://none').hostname),
  );
  expect(pooled.SERVICE_REPLICAS).toBe(String(instances.length));
  // DATABASE_POOLER_CONNECTIONS is left at its default, 20: the template's limit must say the same.
  expect(pooled.DATABASE_POOLER_CONNECTIONS).toBeUndefined();
  expect(/^max_db_connections = (\d+)$/m.exec(template)?.[1]).toBe('20');
  expect(/^pool_mode = (\w+)$/m.exec(template)?.[1]).toBe('transaction');
});

it('builds an image whose files exist, that runs start.sh as a user other than root', () => {
  const [stage] = parseDockerfile(readFileSync(path.join(POOLER_DIR, 'Dockerfile'), 'utf8'));
  const copies = stage.instructions.flatMap((instruction) => (instruction.kind === 'COPY' ? [instruction] : []));
  const copied = copies.flatMap((copy) => copy.sources.map((source) => path.posix.join(copy.destination, source)));
  for (const copy of copies)
    for (const source of copy.sources) expect(existsSync(path.join(POOLER_DIR, source))).toBe(true);
  const cmd = stage.instructions.find((instruction) => instruction.kind === 'CMD');
  expect(cmd?.kind === 'CMD' && cmd.command.form === 'exec' ? cmd.command.argv : []).toEqual([
    '/opt/pgbouncer/start.sh',
  ]);
  expect(copied).toContain('/opt/pgbouncer/start.sh');
  expect(copied).toContain('/opt/pgbouncer/pgbouncer.ini.template');
  const user = stage.instructions.find((instruction) => instruction.kind === 'USER');
  expect(user?.kind === 'USER' && user.user).toBe('postgres');
  const port = stage.instructions.find((instruction) => instruction.kind === 'EXPOSE');
  expect(port?.kind === 'EXPOSE' && String(port.port)).toBe(startDefault('TNS_LISTEN_PORT'));
});
