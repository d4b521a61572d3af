// The one entry point the composition root needs: a migrated database and its Prisma client.
//
// DATABASE_URL set: that PostgreSQL server, or a pooler in front of it when DATABASE_DIRECT_URL
// names the server itself (migrations and listening need a session of their own). Unset: the
// embedded PGlite server with its files in DATA_DIR (default ./.data), so the service runs with no
// database to install. Either way the migrations are applied before the client is handed out, so
// code never meets an old schema.
import path from 'node:path';
import { describeExternalDatabase, describeServer } from './driver/describe-server';
import { startEmbeddedPostgres, EMBEDDED_POOL_SIZE, type EmbeddedPostgres } from './embedded/embedded-postgres';
import type { SupervisorLog } from './embedded/pglite-supervisor';
import { migrateDatabase } from './migrations/migrate-database';
import type { SqlRunner } from './driver/sql-runner';
import {
  createDatabaseClients,
  type PoolUsage,
  type DatabaseClients,
  type PrismaClient,
  type PrismaClientOptions,
} from './driver/prisma-client';

export const DEFAULT_DATA_DIR = '.data';

export interface DatabaseEnvironment {
  DATABASE_URL?: string;
  DATABASE_DIRECT_URL?: string;
  DATA_DIR?: string;
}

export interface OpenDatabase {
  prisma: PrismaClient;
  /** Statements sent straight on Prisma's pool (the busiest ones; see SqlRunner). */
  sql: SqlRunner;
  /** That pool's connections in use, idle and waited for. */
  pool: PoolUsage;
  connectionString: string;
  /**
   * The server itself, for what needs a session of its own (LISTEN): DATABASE_DIRECT_URL behind a
   * pooler, otherwise the same as connectionString.
   */
  directConnectionString: string;
  mode: 'external' | 'embedded';
  /** Where the data lives, for the start-up log. Never contains a password. */
  description: string;
  /**
   * Why the database cannot answer now, when this process knows it (the embedded one is being
   * started again); null otherwise.
   */
  trouble(): string | null;
  /** Disconnects Prisma, then stops the embedded server if there is one. */
  close(): Promise<void>;
}

export interface OpenOptions {
  /**
   * Apply the migrations first (default). A cluster worker passes false: its primary migrated the
   * server's database once before forking it.
   */
  migrate?: boolean;
  /**
   * Connections of the pool to a PostgreSQL server (default: node-postgres', 10). The embedded one
   * always takes one.
   */
  poolSize?: number;
  /** Runs on each new connection of the pool before its first use (see PrismaClientOptions). */
  onConnect?: PrismaClientOptions['onConnect'];
  /** Prepared statements on a PostgreSQL server (default on; never on the embedded one). */
  preparedStatements?: boolean;
  /** The bound on each wait for the database (PrismaClientOptions.timeoutMs). */
  timeoutMs?: number;
  /** Hears every answer of the database (PrismaClientOptions.onAnswer). */
  onAnswer?: () => void;
  /** Told of each migration applied, once committed (MigrationSource.onApplied). */
  onMigrationApplied?: (migration: string) => void;
  /** Watches the statements and the pool's waits (PrismaClientOptions.telemetry). */
  telemetry?: PrismaClientOptions['telemetry'];
  /** Hears the notices of the database on the pool's connections (PrismaClientOptions.onNotice). */
  onNotice?: PrismaClientOptions['onNotice'];
  /** Hears the embedded database stop answering and answer again (default: the console). */
  log?: SupervisorLog;
}

export async function openDatabase(env: DatabaseEnvironment, options: OpenOptions = {}): Promise<OpenDatabase> {
  const databaseUrl = env.DATABASE_URL?.trim();
  if (databaseUrl) {
    const directUrl = env.DATABASE_DIRECT_URL?.trim() || databaseUrl;
    // The migrations' advisory lock is a session's: behind a pooler it would lock nothing.
    if (options.migrate ?? true) await migrateDatabase(directUrl, { onApplied: options.onMigrationApplied });
    const { prisma, sql, pool } = createDatabaseClients(databaseUrl, {
      maxConnections: options.poolSize,
      onConnect: options.onConnect,
      preparedStatements: options.preparedStatements ?? true,
      timeoutMs: options.timeoutMs,
      onAnswer: options.onAnswer,
      telemetry: options.telemetry,
      onNotice: options.onNotice,
    });
    return {
      prisma,
      sql,
      pool,
      connectionString: databaseUrl,
      directConnectionString: directUrl,
      mode: 'external',
      description: describeExternalDatabase(databaseUrl),
      trouble: () => null,
      close: () => prisma.$disconnect(),
    };
  }

  const dataDir = path.resolve(env.DATA_DIR?.trim() || DEFAULT_DATA_DIR);
  const pgDataDir = path.join(dataDir, 'pgdata');
  const server = await startEmbeddedPostgres({ dataDir: pgDataDir, log: options.log });
  let clients: DatabaseClients;
  try {
    await migrateDatabase(server.connectionString, { onApplied: options.onMigrationApplied });
    clients = createDatabaseClients(server.connectionString, {
      maxConnections: EMBEDDED_POOL_SIZE,
      onConnect: options.onConnect,
      timeoutMs: options.timeoutMs,
      onAnswer: options.onAnswer,
      telemetry: options.telemetry,
      onNotice: options.onNotice,
    });
  } catch (error) {
    await server.stop();
    throw error;
  }
  const { prisma, sql, pool } = clients;
  return {
    prisma,
    sql,
    pool,
    connectionString: server.connectionString,
    directConnectionString: server.connectionString,
    mode: 'embedded',
    description:
      `embedded PostgreSQL (PGlite), data in ${pgDataDir}, ` + `served at ${describeServer(server.connectionString)}`,
    trouble: server.trouble,
    close: () => closeEmbedded(prisma, server),
  };
}

async function closeEmbedded(prisma: PrismaClient, server: EmbeddedPostgres): Promise<void> {
  try {
    await prisma.$disconnect();
  } finally {
    await server.stop();
  }
}
