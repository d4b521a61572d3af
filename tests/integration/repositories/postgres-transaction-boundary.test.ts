// PostgresTransactionBoundary and PostgresIdempotencyStore on a real PostgreSQL (or PGlite without
// DATABASE_URL): the port contracts the in-memory fakes also pass.
import { keyedRequestQuotaContract } from '../../support/contracts/keyed-request-quota.contract';
import { transactionBoundaryContract } from '../../support/contracts/transaction-boundary.contract';
import { postgresRepositoriesOnTestDatabase } from '../../support/contracts/postgres-subject';

// Provisioning a database takes a few seconds; PGlite runs every query in WebAssembly.
jest.setTimeout(30_000);

const onTestDatabase = postgresRepositoriesOnTestDatabase();
transactionBoundaryContract('PostgresTransactionBoundary', onTestDatabase);
keyedRequestQuotaContract('PostgresIdempotencyStore', onTestDatabase);
