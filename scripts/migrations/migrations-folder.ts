// Reads prisma/migrations into the shape Prisma's schema engine takes (for db:migration:new, which
// diffs the schema against them), the way `prisma migrate deploy` does: every sub-directory is one
// migration, applied in name order (names start with a UTC timestamp), its SQL in migration.sql;
// migration_lock.toml records the database provider.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  isNotFound,
  MIGRATION_FILE,
  migrationNames,
} from '../../src/infrastructure/database/migrations/migration-files';
import type { MigrationDirectory, MigrationList } from './schema-engine';

export { MIGRATION_FILE };
export const LOCK_FILE = 'migration_lock.toml';

/** A folder that does not exist yet reads as an empty list: the state before the first migration. */
export async function readMigrationsFolder(migrationsDir: string): Promise<MigrationList> {
  const names = await migrationNames(migrationsDir);
  return {
    baseDir: migrationsDir,
    lockfile: { path: LOCK_FILE, content: await readOptional(path.join(migrationsDir, LOCK_FILE)) },
    shadowDbInitScript: '',
    migrationDirectories: await Promise.all(names.map((name) => readMigrationDirectory(migrationsDir, name))),
  };
}

async function readMigrationDirectory(migrationsDir: string, name: string): Promise<MigrationDirectory> {
  const sql = await readOptional(path.join(migrationsDir, name, MIGRATION_FILE));
  return {
    path: name,
    migrationFile: {
      path: MIGRATION_FILE,
      // A missing file is reported to the engine, which then names the broken migration.
      content: sql === null ? { tag: 'error', value: `${MIGRATION_FILE} is missing` } : { tag: 'ok', value: sql },
    },
  };
}

async function readOptional(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}
