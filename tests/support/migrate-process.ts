// `node --import tsx migrate-process.ts <connection string> [migrations directory]`: the service's
// migrations (or those of the directory) in a process of their own, for a test to kill in the middle.
import { migrateDatabase } from '../../src/infrastructure/database/migrations/migrate-database';

const [connectionString = '', migrationsDir] = process.argv.slice(2);

migrateDatabase(connectionString, migrationsDir ? { migrationsDir } : {}).then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
