import { InMemoryDatabase, InMemoryTransactionBoundary } from '../in-memory';
import type { MakeRepositories } from './subject';

/** The in-memory fakes, a new database per test. */
export const inMemoryRepositories: MakeRepositories = async () => {
  const database = new InMemoryDatabase();
  return { repos: database.repositories(), tx: new InMemoryTransactionBoundary(database), cleanup: async () => {} };
};
