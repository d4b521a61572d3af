// The project runs on one Node version, pinned as the dev dependency `node` (the npm registry's
// package of Node's own binaries), which npm scripts run because node_modules/.bin comes first on
// their PATH. Every other place that names the version must name the same one, and the tests
// themselves must be running on it, whatever Node the machine has (docs/operations.md#node).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseDockerfile } from '../../../scripts/container/dockerfile';

const root = path.join(__dirname, '../../..');
const read = (file: string): string => readFileSync(path.join(root, file), 'utf8');

interface PackageJson {
  readonly engines: Record<string, string>;
  readonly devEngines: { readonly runtime: Record<string, string> };
  readonly packageManager: string;
  readonly devDependencies: Record<string, string>;
}
const packageJson = JSON.parse(read('package.json')) as PackageJson;
const pinned = packageJson.devDependencies['node'] ?? '';

describe('the pinned Node', () => {
  it('is one exact version', () => {
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('runs these tests', () => {
    expect(process.version).toBe(`v${pinned}`);
  });

  it('is what .nvmrc names', () => {
    expect(read('.nvmrc').trim()).toBe(pinned);
  });

  it('is the runtime devEngines names, which npm does not hold against the Node running npm itself', () => {
    expect(packageJson.devEngines.runtime).toEqual({ name: 'node', version: pinned, onFail: 'ignore' });
  });

  it('is the Node of every stage of the container image', () => {
    const images = parseDockerfile(read('Dockerfile')).map((stage) => stage.image);
    expect(images.length).toBeGreaterThan(0);
    for (const image of images) expect(image).toBe(`node:${pinned}-trixie-slim`);
  });

  it('comes with npm named exactly by packageManager, a version `engines` accepts', () => {
    const npm = /^npm@(\d+)\.\d+\.\d+$/.exec(packageJson.packageManager);
    const least = /^>=(\d+)$/.exec(packageJson.engines['npm'] ?? '');
    expect(npm).not.toBeNull();
    expect(least).not.toBeNull();
    expect(Number(npm?.[1])).toBeGreaterThanOrEqual(Number(least?.[1]));
  });
});
