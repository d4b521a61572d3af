/**
 * What a read of a set that can grow without bound answers, so that its cost has a bound: the first
 * few members in the set's order, and how many there are, counted up to a limit
 * (docs/paradoxes.md#bounded-work).
 */
export interface Tally<T> {
  /** The first `listed` members, in the set's order. */
  readonly first: readonly T[];
  /** How many members there are; when `capped`, the limit, and there are more. */
  readonly count: number;
  readonly capped: boolean;
}

export interface TallyBounds {
  /** At most this many members are listed; no more than `counted`. */
  readonly listed: number;
  /** Members are counted up to this many; past it the count stops and says so. */
  readonly counted: number;
}
