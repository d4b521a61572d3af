// Prisma 7 reads its settings from here instead of the schema's datasource block.
// DATABASE_URL is optional: `prisma generate` needs no database, and leaving it unset is how
// the service selects its embedded PostgreSQL (see src/infrastructure/database/open-database.ts).
import { defineConfig } from 'prisma/config';

const databaseUrl = process.env.DATABASE_URL;

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  ...(databaseUrl ? { datasource: { url: databaseUrl } } : {}),
});
