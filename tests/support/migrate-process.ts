// `node --import tsx migrate-process.ts <connection string>`: the service's migrations in a process
// of their own, for a test to kill in the middle.
import { migrateDatabase } from '../../src/infrastructure/database/migrations/migrate-database';

migrateDatabase(process.argv[2] ?? '').then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
