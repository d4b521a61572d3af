import type { Repositories } from '../../../src/core/ports/repositories';
import { REPOSITORY_READS } from '../../../src/core/ports/repository-reads';

/**
 * The fakes' `repositories` with every read calling `beforeRead` first, which may refuse it by
 * throwing (a unit of work refuses a read after its writes); their writes as they are. The reads
 * are those the PostgreSQL adapter's units ask about (REPOSITORY_READS).
 */
export function readsAsking(repositories: Repositories, beforeRead: () => void): Repositories {
  const asking: Record<string, unknown> = { ...repositories };
  for (const [aggregate, reads] of Object.entries(REPOSITORY_READS)) {
    asking[aggregate] = aggregateAsking(repositories[aggregate as keyof typeof REPOSITORY_READS], reads, beforeRead);
  }
  return asking as unknown as Repositories;
}

function aggregateAsking(repository: object, reads: object, beforeRead: () => void): object {
  const asking = Object.create(repository) as Record<string, unknown>;
  for (const name of Object.keys(reads)) {
    const read = (repository as Record<string, (...args: unknown[]) => Promise<unknown>>)[name];
    asking[name] = (...args: unknown[]) => {
      try {
        beforeRead();
      } catch (refusal) {
        return Promise.reject(refusal);
      }
      return read.apply(repository, args);
    };
  }
  return asking;
}
