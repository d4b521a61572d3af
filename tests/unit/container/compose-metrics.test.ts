// docker-compose.yml's `metrics` profile and deploy/prometheus, read as Docker Compose and
// Prometheus would (no Docker engine here): Prometheus scrapes each instance where its metrics
// listen, on the compose network only, with the shipped rules. promtool checks the files
// themselves (tests/integration/prometheus/).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

const ROOT = path.join(__dirname, '../../..');

interface Service {
  profiles?: string[];
  environment?: Record<string, string>;
  expose?: string[];
  ports?: string[];
  volumes?: string[];
}
const { services } = parse(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8')) as {
  services: Record<string, Service>;
};
const prometheus = parse(readFileSync(path.join(ROOT, 'deploy/prometheus/prometheus.yml'), 'utf8')) as {
  rule_files: string[];
  scrape_configs: Array<{ job_name: string; static_configs: Array<{ targets: string[] }> }>;
};

it('runs Prometheus only in the metrics profile, with deploy/prometheus as its configuration', () => {
  expect(services.prometheus?.profiles).toEqual(['metrics']);
  expect(services.prometheus?.volumes).toContain('./deploy/prometheus:/etc/prometheus:ro');
  expect(prometheus.rule_files).toEqual(['alerts.yml']);
  // Its UI on the host's loopback, never beyond.
  expect(services.prometheus?.ports).toEqual(['127.0.0.1:9090:9090']);
});

it('scrapes each target where that instance serves its metrics, reachable on the compose network only', () => {
  const targets = prometheus.scrape_configs.flatMap((job) => job.static_configs.flatMap((each) => each.targets));
  expect(targets.length).toBeGreaterThan(0);
  for (const target of targets) {
    const [name, port] = target.split(':');
    const service = services[name ?? ''];
    expect(service?.environment?.METRICS_PORT).toBe(port);
    expect(service?.environment?.METRICS_HOST).toBe('0.0.0.0');
    expect(service?.expose).toContain(port);
    expect((service?.ports ?? []).some((published) => published.includes(port ?? ''))).toBe(false);
  }
  // The pooled instance, when its profile runs, serves them alike.
  expect(services['api-pooled']?.environment).toMatchObject({ METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0' });
});
