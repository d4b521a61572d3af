import type { ReadRepositories, Repositories } from './repositories';

/**
 * Each aggregate's reads, by name; the compiler holds every list to its port's `...Reads`. The
 * travellers are not among them: a unit of work's traveller is its own, kept up to date by its writes.
 */
export const REPOSITORY_READS = {
  accounts: { findByEmail: true, findById: true },
  apiKeys: { findByDigest: true, findForAccount: true, listForAccount: true },
  sessions: { findByTokenDigest: true, listForAccount: true },
  timelines: { findForAccount: true, listForAccount: true },
  anchors: { findForAccount: true },
  items: { findSame: true, findManyForAccount: true },
  events: {
    findForAccount: true,
    listAt: true,
    listInRange: true,
    tallyNamed: true,
    tallyDisplaced: true,
    tallyManipulated: true,
    manipulationsOf: true,
  },
} as const satisfies { [K in Exclude<keyof ReadRepositories, 'travellers'>]: Record<keyof ReadRepositories[K], true> };

/**
 * `repositories` whose every read calls `beforeRead` first, which may refuse it by throwing (a unit
 * of work refuses a read after its writes); their writes as they are. Wired once, where a unit's
 * repositories are made, so no repository has to remember it.
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
