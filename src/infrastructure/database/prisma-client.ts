// The Prisma client of the service. Prisma 7 has no query-engine binary: the client runs its
// queries through a driver adapter, here node-postgres (@prisma/adapter-pg), for both a real
// PostgreSQL server and the embedded PGlite one, which speaks the same wire protocol.
import { PrismaPg } from '@prisma/adapter-pg';
import { Prisma, PrismaClient } from '../persistence/prisma/generated/client';

export { Prisma, PrismaClient };

/**
 * What a repository receives inside `prisma.$transaction(async (tx) => ...)`: the client minus
 * $connect, $transaction and the like. Repositories that accept it work both inside and outside
 * a transaction, since a PrismaClient is assignable to it.
 */
export type TransactionClient = Prisma.TransactionClient;

export interface PrismaClientOptions {
  /**
   * Size of the connection pool. Default: node-postgres' default (10). The embedded server
   * needs 1 (EMBEDDED_POOL_SIZE in embedded-postgres.ts explains why).
   */
  maxConnections?: number;
}

export function createPrismaClient(connectionString: string, options: PrismaClientOptions = {}): PrismaClient {
  const adapter = new PrismaPg(
    options.maxConnections === undefined ? { connectionString } : { connectionString, max: options.maxConnections },
  );
  return new PrismaClient({ adapter });
}
