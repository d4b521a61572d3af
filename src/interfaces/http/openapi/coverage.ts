import { STATUS_BY_CODE } from '../error-statuses';
import type { Route } from '../route';

/**
 * What the OpenAPI document would be missing for these routes, one sentence each; empty when every
 * route is documented. A test fails on any gap, so a route cannot ship undocumented.
 */
export function documentationGaps(routes: readonly Route[]): string[] {
  return routes.flatMap((route) => {
    const name = `${route.method.toUpperCase()} ${route.path}`;
    const gaps: string[] = [];
    if (!route.summary.trim()) gaps.push(`${name} has no summary`);
    if (!route.docs) return [...gaps, `${name} has no docs (success status, response class, error codes, example)`];
    const { description, status, errors, example } = route.docs;
    if (!description.trim()) gaps.push(`${name} has no description`);
    if (status < 200 || status > 299) gaps.push(`${name} documents ${status} as its success`);
    for (const code of errors) {
      if (STATUS_BY_CODE[code] === undefined)
        gaps.push(`${name} names error code ${code}, which error-statuses.ts does not know`);
    }
    const takesInput = route.body !== undefined || route.query !== undefined || route.path.includes(':');
    if (takesInput && !example) gaps.push(`${name} takes input but has no example request`);
    return gaps;
  });
}
