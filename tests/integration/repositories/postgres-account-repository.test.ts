// PostgresAccountRepository on a real PostgreSQL (or PGlite without DATABASE_URL): the port contract
// the in-memory fake also passes.
import { accountRepositoryContract } from '../../support/contracts/account-repository.contract';
import { postgresRepositoriesOnTestDatabase } from '../../support/contracts/postgres-subject';

// Provisioning a database takes a few seconds; PGlite runs every query in WebAssembly.
jest.setTimeout(30_000);

accountRepositoryContract('PostgresAccountRepository', postgresRepositoriesOnTestDatabase());
