// The use-case tests trust the in-memory fakes to behave like the Prisma adapters: both pass the
// same port contracts (tests/support/contracts), the adapters in tests/integration/repositories.
import { accountRepositoryContract } from '../../support/contracts/account-repository.contract';
import { anchorRepositoryContract } from '../../support/contracts/anchor-repository.contract';
import { apiKeyRepositoryContract } from '../../support/contracts/api-key-repository.contract';
import { eventRepositoryContract } from '../../support/contracts/event-repository.contract';
import { inMemoryRepositories } from '../../support/contracts/in-memory-subject';
import { itemRepositoryContract } from '../../support/contracts/item-repository.contract';
import { keyedRequestQuotaContract } from '../../support/contracts/keyed-request-quota.contract';
import { timelineRepositoryContract } from '../../support/contracts/timeline-repository.contract';
import { transactionBoundaryContract } from '../../support/contracts/transaction-boundary.contract';
import { travellerRepositoryContract } from '../../support/contracts/traveller-repository.contract';
import { webhookEndpointRepositoryContract } from '../../support/contracts/webhook-endpoint-repository.contract';

accountRepositoryContract('InMemoryAccountRepository', inMemoryRepositories);
apiKeyRepositoryContract('InMemoryApiKeyRepository', inMemoryRepositories);
travellerRepositoryContract('InMemoryTravellerRepository', inMemoryRepositories);
timelineRepositoryContract('InMemoryTimelineRepository', inMemoryRepositories);
anchorRepositoryContract('InMemoryAnchorRepository', inMemoryRepositories);
itemRepositoryContract('InMemoryItemRepository', inMemoryRepositories);
eventRepositoryContract('InMemoryEventRepository', inMemoryRepositories);
webhookEndpointRepositoryContract('InMemoryWebhookEndpointRepository', inMemoryRepositories);
transactionBoundaryContract('InMemoryTransactionBoundary', inMemoryRepositories);
keyedRequestQuotaContract('InMemoryIdempotencyStore', inMemoryRepositories);
