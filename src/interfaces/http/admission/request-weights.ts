import type { Request } from 'express';
import { MAX_LIST_LENGTH } from '../dtos/limits';
import { pagesAsked } from '../middleware/rate-limit';

/**
 * Names in a request's lists (a paradox check's proposed changes, a travel's items carried) that
 * weigh as much as one ordinary request: a 100-name check costs the service some eight plain reads
 * (docs/decisions.md, "Fair share of the instance").
 */
export const NAMES_PER_WEIGHT = 12;

/**
 * A request's weight in the instance's fair share, known before it runs: the pages it asks for
 * (one per 100 items, as the rate limit counts them) or the names it lists, whichever weighs more.
 * Read from the parsed body before validation, so a list longer than any operation takes weighs as
 * the longest (validation then refuses it).
 */
export function weightOf(req: Pick<Request, 'body' | 'query'>): number {
  return Math.max(pagesAsked(req), Math.ceil(namesListed(req.body) / NAMES_PER_WEIGHT));
}

function namesListed(body: unknown): number {
  if (typeof body !== 'object' || body === null) return 0;
  let names = 0;
  for (const value of Object.values(body)) if (Array.isArray(value)) names += Math.min(value.length, MAX_LIST_LENGTH);
  return names;
}

/** Weights grouped for the metrics: an ordinary request, a few requests' worth, or a heavy one. */
export type WeightClass = 'light' | 'medium' | 'heavy';

export function weightClassOf(weight: number): WeightClass {
  if (weight <= 1) return 'light';
  return weight < 5 ? 'medium' : 'heavy';
}
