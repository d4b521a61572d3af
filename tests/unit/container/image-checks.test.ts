// What the container replay checks of the runtime image before running it
// (scripts/container/image-checks.ts): its node_modules under the bound, its labels from package.json.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  checkModulesSize,
  diskUsageMiB,
  labelMismatches,
  MODULES_LIMIT_MIB,
} from '../../../scripts/container/image-checks';

describe('checkModulesSize', () => {
  it('passes a node_modules under the bound, and says its size', () => {
    expect(MODULES_LIMIT_MIB).toBe(150);
    expect(checkModulesSize(119.6)).toBe('node_modules 119.6 MiB on disk (bound: under 150 MiB)');
    expect(checkModulesSize(149.9)).toMatch(/^node_modules 149\.9 MiB/);
  });

  it.each([150, 201.2])('fails one of %d MiB, at or over the bound', (mib) => {
    expect(() => checkModulesSize(mib)).toThrow(`holds ${mib.toFixed(1)} MiB on disk, at or over its bound of 150 MiB`);
  });
});

describe('diskUsageMiB', () => {
  it('counts what the files of a folder take on disk', () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'image-checks-'));
    try {
      writeFileSync(path.join(folder, 'a'), Buffer.alloc(3 * 1024 * 1024, 1));
      writeFileSync(path.join(folder, 'b'), Buffer.alloc(1024 * 1024, 1));
      const mib = diskUsageMiB(folder);
      expect(mib).toBeGreaterThanOrEqual(4);
      expect(mib).toBeLessThan(4.1);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('labelMismatches', () => {
  const pkg = { name: 'svc', version: '1.2.3', description: 'A service.', license: 'MIT', private: true };
  const labels = {
    'org.opencontainers.image.title': 'svc',
    'org.opencontainers.image.description': 'A service.',
    'org.opencontainers.image.version': '1.2.3',
    'org.opencontainers.image.licenses': 'MIT',
  };

  it('finds none when every label says what package.json says', () => {
    expect(labelMismatches(labels, pkg)).toEqual([]);
  });

  it('names a label left behind by a new version, and one missing', () => {
    const { 'org.opencontainers.image.licenses': _, ...withoutLicence } = labels;
    expect(labelMismatches(withoutLicence, { ...pkg, version: '1.3.0' })).toEqual([
      'LABEL org.opencontainers.image.version="1.2.3", package.json\'s version is "1.3.0"',
      'LABEL org.opencontainers.image.licenses=null, package.json\'s license is "MIT"',
    ]);
  });

  it('names a field package.json lacks', () => {
    expect(labelMismatches(labels, { ...pkg, description: undefined })).toEqual([
      'package.json has no description for LABEL org.opencontainers.image.description',
    ]);
  });
});
