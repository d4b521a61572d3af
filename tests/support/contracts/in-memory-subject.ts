import {
  InMemoryDatabase,
  InMemoryIdempotencyStore,
  InMemoryRateCounters,
  InMemoryTransactionBoundary,
} from '../in-memory';
import type { MakeRepositories } from './subject';

/** The in-memory fakes, a new database per test. */
export const inMemoryRepositories: MakeRepositories = async () => {
  const database = new InMemoryDatabase();
  const tx = new InMemoryTransactionBoundary(database);
  return {
    repos: database.repositories(),
    tx,
    anotherProcess: () => new InMemoryTransactionBoundary(database),
    keys: new InMemoryIdempotencyStore(tx),
    counters: new InMemoryRateCounters(),
    cleanup: async () => {},
  };
};
