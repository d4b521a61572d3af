// docker-compose.yml's services built from this project's Dockerfile, read as Docker Compose would
// (no Docker engine here): each runs with an init process, a read-only root, no capability, no
// privilege gained through setuid, and a memory limit above the service's heaviest moment.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

const ROOT = path.join(__dirname, '../../..');

interface Service {
  build?: string | { context?: string };
  init?: boolean;
  read_only?: boolean;
  cap_drop?: string[];
  security_opt?: string[];
  mem_limit?: string;
  environment?: Record<string, string>;
}
const { services } = parse(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
};
const ours = Object.entries(services).filter(([, service]) => {
  const context = typeof service.build === 'string' ? service.build : service.build?.context;
  return context === '.';
});

/**
 * The most a first start on the embedded database held resident (MiB): 558–563 with the image's
 * NODE_OPTIONS, 664–698 in `npm run bench:first-start` (docs/operations.md#container).
 */
const FIRST_EMBEDDED_START_PEAK_MIB = 700;

const UNIT_MIB: Record<string, number> = { b: 1 / 1024 ** 2, k: 1 / 1024, m: 1, g: 1024 };

/** Compose's byte values: a number and a unit (b, k, m, g), as in `mem_limit: 1g`. */
function mebibytes(value: string): number {
  const match = /^(\d+(?:\.\d+)?)([bkmg])b?$/i.exec(value.trim());
  const unit = UNIT_MIB[(match?.[2] ?? '').toLowerCase()];
  if (!match || unit === undefined) throw new Error(`not a byte value: ${value}`);
  return Number(match[1]) * unit;
}

it('finds the services built from the Dockerfile: the direct, the pooled and the ha instance', () => {
  expect(ours.map(([name]) => name).sort()).toEqual(['api', 'api-ha', 'api-pooled']);
});

describe.each(ours)('%s', (_, service) => {
  it('runs under an init process, which reaps children and passes signals on', () => {
    expect(service.init).toBe(true);
  });

  it('keeps no capability and cannot gain privileges', () => {
    expect(service.cap_drop).toEqual(['ALL']);
    expect(service.security_opt).toContain('no-new-privileges:true');
  });

  it('runs on a read-only root, writing nothing: it uses a PostgreSQL server, not the embedded database', () => {
    expect(service.read_only).toBe(true);
    // The embedded database writes its data folder, the image's VOLUME, which stays writable; with
    // DATABASE_URL the service opens no file for writing (docs/operations.md#container).
    expect(service.environment?.DATABASE_URL).toMatch(/^postgresql:\/\//);
  });

  it('is limited in memory, above the peak of a first start on the embedded database', () => {
    expect(mebibytes(service.mem_limit ?? '0b')).toBeGreaterThan(FIRST_EMBEDDED_START_PEAK_MIB);
  });
});
