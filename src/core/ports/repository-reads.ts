import type { ReadRepositories } from './repositories';

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
  webhookEndpoints: { findForAccount: true, listForAccount: true, countForAccount: true },
} as const satisfies { [K in Exclude<keyof ReadRepositories, 'travellers'>]: Record<keyof ReadRepositories[K], true> };

/**
 * The reads of `repositories` alone, each bound to its repository: what a read or a consistent
 * read is given, so a write is out of reach at run time too, not only by type.
 */
export function onlyReads(repositories: ReadRepositories): ReadRepositories {
  return {
    accounts: readsOf(repositories.accounts, REPOSITORY_READS.accounts),
    apiKeys: readsOf(repositories.apiKeys, REPOSITORY_READS.apiKeys),
    sessions: readsOf(repositories.sessions, REPOSITORY_READS.sessions),
    travellers: readsOf(repositories.travellers, { getForAccount: true }),
    timelines: readsOf(repositories.timelines, REPOSITORY_READS.timelines),
    anchors: readsOf(repositories.anchors, REPOSITORY_READS.anchors),
    items: readsOf(repositories.items, REPOSITORY_READS.items),
    events: readsOf(repositories.events, REPOSITORY_READS.events),
    webhookEndpoints: readsOf(repositories.webhookEndpoints, REPOSITORY_READS.webhookEndpoints),
  };
}

type Reads<R> = { [K in keyof R]: R[K] extends (...args: never[]) => Promise<unknown> ? K : never }[keyof R];

function readsOf<R, K extends Reads<R>>(repository: R, names: { readonly [N in K]: true }): Pick<R, K> {
  const reads: Partial<Pick<R, K>> = {};
  // The names are keys of `names`, typed K by its type.
  for (const name of Object.keys(names) as K[]) {
    const read = repository[name];
    if (typeof read !== 'function') throw new Error(`a repository without its read ${String(name)}`);
    reads[name] = read.bind(repository);
  }
  // Every name of K was set just above.
  return reads as Pick<R, K>;
}
