// What the replay (replay.ts) checks of the runtime image besides running it: the size of its
// node_modules, and that its OCI labels say what package.json says.
import { execFileSync } from 'node:child_process';

/** The runtime's node_modules must stay under this, on disk as `du` counts it (docs/operations.md#container). */
export const MODULES_LIMIT_MIB = 150;

/** A folder's size on disk, as `du -s` counts it, in MiB. */
export function diskUsageMiB(folder: string): number {
  const kib = Number(execFileSync('du', ['-sk', folder], { encoding: 'utf8' }).split('\t')[0]);
  if (!Number.isFinite(kib)) throw new Error(`du -sk ${folder}: no size`);
  return kib / 1024;
}

/** The line the replay prints; throws when node_modules is at or over the bound. */
export function checkModulesSize(mib: number): string {
  const figure = `${mib.toFixed(1)} MiB on disk`;
  if (mib >= MODULES_LIMIT_MIB) {
    throw new Error(
      `the runtime's node_modules holds ${figure}, at or over its bound of ${MODULES_LIMIT_MIB} MiB: ` +
        'leave out what production never loads (scripts/container/never-loaded.ts)',
    );
  }
  return `node_modules ${figure} (bound: under ${MODULES_LIMIT_MIB} MiB)`;
}

const FROM_PACKAGE_JSON = {
  'org.opencontainers.image.title': 'name',
  'org.opencontainers.image.description': 'description',
  'org.opencontainers.image.version': 'version',
  'org.opencontainers.image.licenses': 'license',
} as const;

/** The OCI labels that are missing or differ from package.json (parsed), one line each. */
export function labelMismatches(labels: Readonly<Record<string, string>>, packageJson: unknown): string[] {
  const facts = new Map(typeof packageJson === 'object' && packageJson !== null ? Object.entries(packageJson) : []);
  return Object.entries(FROM_PACKAGE_JSON).flatMap(([label, field]) => {
    const expected: unknown = facts.get(field);
    if (typeof expected !== 'string') return [`package.json has no ${field} for LABEL ${label}`];
    if (labels[label] === expected) return [];
    return [
      `LABEL ${label}=${JSON.stringify(labels[label] ?? null)}, package.json's ${field} is ${JSON.stringify(expected)}`,
    ];
  });
}
