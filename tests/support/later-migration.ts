// The shipped migrations plus one of the next release, for a test that shows a database (restored
// from a backup, say) takes the migrations that come after it.
import { cp, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { migrationsDirectory } from '../../src/infrastructure/database/migrations/package-root';

/** Sorts after every shipped migration. */
export const LATER_MIGRATION = '29991231000000_after_the_backup';

/** A copy of the shipped migrations with LATER_MIGRATION added, in `folder`; answers its path. */
export async function migrationsWithALaterOne(folder: string): Promise<string> {
  const migrations = join(folder, 'migrations');
  await cp(migrationsDirectory(), migrations, { recursive: true });
  await mkdir(join(migrations, LATER_MIGRATION));
  await writeFile(join(migrations, LATER_MIGRATION, 'migration.sql'), 'CREATE TABLE "after_the_backup" (id INT);\n');
  return migrations;
}
