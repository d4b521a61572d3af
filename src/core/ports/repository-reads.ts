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
} as const satisfies { [K in Exclude<keyof ReadRepositories, 'travellers'>]: Record<keyof ReadRepositories[K], true> };
