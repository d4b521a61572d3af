// PostgresWebhookEndpointRepository on a real PostgreSQL (or PGlite without DATABASE_URL): the port
// contract the in-memory fake also passes.
import { postgresRepositoriesOnTestDatabase } from '../../support/contracts/postgres-subject';
import { webhookEndpointRepositoryContract } from '../../support/contracts/webhook-endpoint-repository.contract';

// Provisioning a database takes a few seconds; PGlite runs every query in WebAssembly.
jest.setTimeout(30_000);

webhookEndpointRepositoryContract('PostgresWebhookEndpointRepository', postgresRepositoriesOnTestDatabase());
