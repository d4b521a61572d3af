// A fresh, migrated database for each caller (in practice each test file), never shared with
// another test file or Jest worker:
// - DATABASE_URL set (a real PostgreSQL server): a new database created as a copy of a template
//   database that test-database-global-setup.ts migrated once for the whole run, dropped on close;
// - DATABASE_URL unset: an in-memory PGlite served over a local socket, started from a migrated
//   snapshot made by the global setup (or created and migrated on the spot without one).
// Both go through the same @prisma/adapter-pg path as the service.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { EMBEDDED_POOL_SIZE, startInMemoryPostgres } from '../../src/infrastructure/database/embedded-postgres';
import { migrateDatabase } from '../../src/infrastructure/database/migrate-database';
import { createPrismaClient, type PrismaClient } from '../../src/infrastructure/database/prisma-client';
import { TEST_DATABASE_ENV, TEST_DATABASE_PREFIX, withAdminClient, withDatabase } from './test-database-names';

export interface TestDatabase {
  prisma: PrismaClient;
  connectionString: string;
  close(): Promise<void>;
}

export async function provisionTestDatabase(): Promise<TestDatabase> {
  const serverUrl = process.env.DATABASE_URL?.trim();
  return serverUrl ? provisionOnServer(serverUrl) : provisionInMemory();
}

async function provisionOnServer(serverUrl: string): Promise<TestDatabase> {
  const template = process.env[TEST_DATABASE_ENV.template];
  const runId = process.env[TEST_DATABASE_ENV.runId];
  if (!template || !runId) {
    throw new Error(
      'provisionTestDatabase with DATABASE_URL needs the Jest globalSetup/globalTeardown of ' +
        'tests/support/test-database-global-setup.ts and -teardown.ts (see jest.config.js).',
    );
  }
  // The run id in the name lets the global teardown drop what a crashed worker could not.
  const name = `${TEST_DATABASE_PREFIX}${runId}_${randomBytes(4).toString('hex')}`;
  await withAdminClient(serverUrl, (admin) => admin.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`));
  const connectionString = withDatabase(serverUrl, name);
  const prisma = createPrismaClient(connectionString);
  return {
    prisma,
    connectionString,
    async close() {
      try {
        await prisma.$disconnect();
      } finally {
        await withAdminClient(serverUrl, (admin) => admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
      }
    },
  };
}

async function provisionInMemory(): Promise<TestDatabase> {
  const snapshotFile = process.env[TEST_DATABASE_ENV.snapshotFile];
  const server = await startInMemoryPostgres(
    snapshotFile ? { initialData: new Blob([await readFile(snapshotFile)]) } : {},
  );
  try {
    if (!snapshotFile) await migrateDatabase(server.connectionString);
  } catch (error) {
    await server.stop();
    throw error;
  }
  // One connection, as the service uses in embedded mode (see embedded-postgres.ts).
  const prisma = createPrismaClient(server.connectionString, { maxConnections: EMBEDDED_POOL_SIZE });
  return {
    prisma,
    connectionString: server.connectionString,
    async close() {
      try {
        await prisma.$disconnect();
      } finally {
        await server.stop();
      }
    },
  };
}
