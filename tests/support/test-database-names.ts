import { Client } from 'pg';

// Kept free of the Prisma client on purpose: Jest loads the global setup and teardown with Node's
// own require, which cannot resolve the generated client's `./x.js` imports of TypeScript files.
//
// Shared by the global setup, the global teardown and provisionTestDatabase: they run in
// different processes (Jest's parent and its workers) and communicate through the environment,
// which the workers inherit from the parent after the global setup ran.
export const TEST_DATABASE_ENV = {
  /** Identifies one `jest` run; every database it creates on a server carries it. */
  runId: 'TEST_DATABASE_RUN_ID',
  /** The migrated template database on the DATABASE_URL server. */
  template: 'TEST_DATABASE_TEMPLATE',
  /** Where the in-memory PGlite databases are handed out (pglite-pool.ts; when DATABASE_URL is unset). */
  poolUrl: 'TEST_DATABASE_POOL_URL',
} as const;

/** Prefix of every database the tests create: `tns_test_<run id>_...`. */
export const TEST_DATABASE_PREFIX = 'tns_test_';

/** The same server URL pointing at another database. */
export function withDatabase(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** A short-lived connection for CREATE/DROP DATABASE (they cannot run on the target itself). */
export async function withAdminClient<T>(serverUrl: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
