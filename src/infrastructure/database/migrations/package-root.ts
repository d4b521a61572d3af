// Files that ship beside the code (prisma/migrations, prisma/schema.prisma) are found from the
// package root, not from __dirname: this code runs from src/ (tsx, ts-jest) and from dist/src/
// (compiled by tsc), and only the nearest package.json is at the same place in both.
import { existsSync } from 'node:fs';
import path from 'node:path';

export function findPackageRoot(startDir: string = __dirname): string {
  let dir = path.resolve(startDir);
  for (;;) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) {
      throw new Error(`No package.json found in ${startDir} or any directory above it`);
    }
    dir = parent;
  }
}

export function migrationsDirectory(): string {
  return path.join(findPackageRoot(), 'prisma', 'migrations');
}

export function schemaPath(): string {
  return path.join(findPackageRoot(), 'prisma', 'schema.prisma');
}
