// The shipped Prometheus configuration and alert rules (deploy/prometheus), checked by Debian's
// promtool as an operator's CI would, and unit-tested with the series that should set each alert
// off (tests/prometheus/alerts.test.yml). scripts/ensure-prometheus.sh installs promtool.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const ROOT = path.join(__dirname, '../../..');
const PROMTOOL = process.env.PROMTOOL ?? 'promtool';
const run = promisify(execFile);

async function promtool(...args: string[]): Promise<string> {
  const { stdout, stderr } = await run(PROMTOOL, args, { cwd: ROOT });
  return `${stdout}${stderr}`;
}

it('finds the configuration and its rules valid', async () => {
  expect(await promtool('check', 'config', 'deploy/prometheus/prometheus.yml')).toContain('SUCCESS: 11 rules found');
});

it('fires each alert on the series that should set it off, after its `for`, and not before', async () => {
  expect(await promtool('test', 'rules', 'tests/prometheus/alerts.test.yml')).toContain('SUCCESS');
});
