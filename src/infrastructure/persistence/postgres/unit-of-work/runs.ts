/**
 * Each run lost means another writer of the account applied its own in between; losing this many
 * in a row is not contention but a defect, reported rather than run for ever.
 */
export const MAX_RUNS = 100;

/** How a unit's statement ended: applied, behind another writer, or (keyed) on a key already kept. */
export type Outcome = 'applied' | 'conflict' | 'key-taken';
