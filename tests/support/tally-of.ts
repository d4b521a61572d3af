import type { Tally, TallyBounds } from '../../src/core/domain/tally';

/**
 * The tally of a set held whole, in its order: what a bounded read must answer for it (the fake
 * repositories' tallies, and the reference of the tests that check them).
 */
export function tallyOf<T>(ordered: readonly T[], bounds: TallyBounds): Tally<T> {
  const capped = ordered.length > bounds.counted;
  return {
    first: ordered.slice(0, bounds.listed),
    count: capped ? bounds.counted : ordered.length,
    capped,
  };
}
