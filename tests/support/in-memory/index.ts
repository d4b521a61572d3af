export { FakeCredentialHasher } from './fake-credential-hasher';
export { FrozenWallClock } from './frozen-wall-clock';
export { InThreadCommonPasswords } from './in-thread-common-passwords';
export { InMemoryDatabase, type DatabaseContents } from './in-memory-database';
export {
  type InMemoryBoundaryOptions,
  InMemoryTransactionBoundary,
  type KeyedRun,
} from './in-memory-transaction-boundary';
export { SequentialIdGenerator } from './sequential-id-generator';
export { InMemoryIdempotencyStore } from './in-memory-idempotency-store';
export { InMemoryRateCounters } from './in-memory-rate-counters';
export { FakeWebhookDestinations } from './fake-webhook-destinations';
