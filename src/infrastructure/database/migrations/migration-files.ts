// prisma/migrations as `prisma migrate deploy` reads it: every sub-directory is one migration,
// applied in name order (names start with a UTC timestamp), its SQL in migration.sql, its checksum
// the SHA-256 of that file, as Prisma records it.
import { createHash } from 'node:crypto';
import type { Dirent } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

export const MIGRATION_FILE = 'migration.sql';

export interface Migration {
  readonly name: string;
  readonly sql: string;
  /** SHA-256 of the file, in hex: `_prisma_migrations.checksum`. */
  readonly checksum: string;
}

/** The migrations in order; a folder that does not exist yet reads as none. */
export async function readMigrations(migrationsDir: string): Promise<Migration[]> {
  const names = await migrationNames(migrationsDir);
  return Promise.all(names.map((name) => readMigration(migrationsDir, name)));
}

/** The migrations' folder names, in the order they apply (each starts with a UTC timestamp). */
export async function migrationNames(migrationsDir: string): Promise<string[]> {
  let entries: Dirent[] = [];
  try {
    entries = await readdir(migrationsDir, { withFileTypes: true });
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  return entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

async function readMigration(migrationsDir: string, name: string): Promise<Migration> {
  const file = path.join(migrationsDir, name, MIGRATION_FILE);
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    if (isNotFound(error)) throw new Error(`Migration ${name} has no ${MIGRATION_FILE} (${file})`, { cause: error });
    throw error;
  }
  return { name, sql: bytes.toString('utf8'), checksum: createHash('sha256').update(bytes).digest('hex') };
}

export function isNotFound(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === 'ENOENT';
}
