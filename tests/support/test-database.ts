// A fresh, migrated database for each caller (in practice each test file), never shared with
// another test file or Jest worker:
// - DATABASE_URL set (a real PostgreSQL server): a new database created as a copy of a template
//   database that test-database-global-setup.ts migrated once for the whole run, dropped on close;
// - DATABASE_URL unset: an in-memory PGlite started from a migrated snapshot, served over a local
//   socket by the pool in Jest's parent process (pglite-pool.ts), ended on close.
// Both go through the same @prisma/adapter-pg path as the service.
import { randomBytes } from 'node:crypto';
import { EMBEDDED_POOL_SIZE } from '../../src/infrastructure/database/embedded/embedded-postgres';
import {
  createDatabaseClients,
  type PrismaClient,
  type PrismaClientOptions,
} from '../../src/infrastructure/database/driver/prisma-client';
import type { SqlRunner } from '../../src/infrastructure/database/driver/sql-runner';
import { openPooledDatabase, type PooledDatabase, type PoolSnapshot } from './pglite-pool';
import { TEST_DATABASE_ENV, TEST_DATABASE_PREFIX, withAdminClient, withDatabase } from './test-database-names';

export interface TestDatabase {
  prisma: PrismaClient;
  /** Statements straight on the Prisma client's pool, as the service sends its busiest ones. */
  sql: SqlRunner;
  connectionString: string;
  /** As OpenDatabase says it: a PostgreSQL server, or PGlite in this process. */
  mode: 'external' | 'embedded';
  close(): Promise<void>;
}

/** `onConnect` is the Prisma pool's, as the service passes it (the verified-key cache's LISTEN). */
export async function provisionTestDatabase(
  options: Pick<PrismaClientOptions, 'onConnect'> = {},
): Promise<TestDatabase> {
  const serverUrl = process.env.DATABASE_URL?.trim();
  return serverUrl ? provisionOnServer(serverUrl, options) : provisionInMemory(options);
}

async function provisionOnServer(
  serverUrl: string,
  options: Pick<PrismaClientOptions, 'onConnect'>,
): Promise<TestDatabase> {
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
  const { prisma, sql } = createDatabaseClients(connectionString, { ...options, preparedStatements: true });
  return {
    prisma,
    sql,
    connectionString,
    mode: 'external',
    async close() {
      try {
        await prisma.$disconnect();
      } finally {
        await withAdminClient(serverUrl, (admin) => admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
      }
    },
  };
}

/**
 * Another client of a database provisioned elsewhere (by another test app: as a second service
 * process has its own pool on the same database); close() leaves the database to its owner.
 */
export function connectToTestDatabase(
  shared: Pick<TestDatabase, 'connectionString' | 'mode'>,
  options: Pick<PrismaClientOptions, 'onConnect'> = {},
): TestDatabase {
  const maxConnections = shared.mode === 'embedded' ? EMBEDDED_POOL_SIZE : undefined;
  const { prisma, sql } = createDatabaseClients(shared.connectionString, {
    ...options,
    maxConnections,
    preparedStatements: shared.mode !== 'embedded',
  });
  return {
    prisma,
    sql,
    connectionString: shared.connectionString,
    mode: shared.mode,
    close: () => prisma.$disconnect(),
  };
}

/** A database of the pool (pglite-pool.ts) before any migration, for the migration runner's tests. */
export function provisionBlankInMemoryDatabase(): Promise<PooledDatabase> {
  return fromPool('blank');
}

async function fromPool(from: PoolSnapshot): Promise<PooledDatabase> {
  const poolUrl = process.env[TEST_DATABASE_ENV.poolUrl];
  if (!poolUrl) {
    throw new Error(
      'provisionTestDatabase without DATABASE_URL needs the Jest globalSetup/globalTeardown of ' +
        'tests/support/test-database-global-setup.ts and -teardown.ts (see jest.config.js).',
    );
  }
  return openPooledDatabase(poolUrl, from);
}

async function provisionInMemory(options: Pick<PrismaClientOptions, 'onConnect'>): Promise<TestDatabase> {
  const database = await fromPool('migrated');
  // One connection, as the service uses in embedded mode (see embedded-postgres.ts).
  const { prisma, sql } = createDatabaseClients(database.connectionString, {
    ...options,
    maxConnections: EMBEDDED_POOL_SIZE,
  });
  return {
    prisma,
    sql,
    connectionString: database.connectionString,
    mode: 'embedded',
    async close() {
      try {
        await prisma.$disconnect();
      } finally {
        await database.close();
      }
    },
  };
}
