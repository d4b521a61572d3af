export { FakeCredentialHasher } from './fake-credential-hasher';
export { FrozenWallClock } from './frozen-wall-clock';
export { InMemoryDatabase, type DatabaseContents } from './in-memory-database';
export { type InMemoryBoundaryOptions, InMemoryTransactionBoundary } from './in-memory-transaction-boundary';
export { SequentialIdGenerator } from './sequential-id-generator';
