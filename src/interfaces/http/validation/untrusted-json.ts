import type { FieldError } from '../problem';

/** Half of a UTF-16 pair on its own: JSON allows the escape, but no text can be stored or encoded from it. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Deeper than any request of this API needs; deeper input would only exhaust the validator's stack. */
export const MAX_JSON_DEPTH = 16;

/**
 * What must be refused before a validator walks the input: nesting beyond MAX_JSON_DEPTH, the NUL
 * character (PostgreSQL cannot store it in text) and lone surrogates (validators choke on them).
 * Iterative, so hostile depth costs no stack.
 */
export function unsafeJson(input: unknown): FieldError | null {
  const pending: Array<{ value: unknown; path: string; depth: number }> = [{ value: input, path: '', depth: 0 }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const { value, path, depth } = next;
    if (typeof value === 'string' && value.includes('\u0000')) {
      return { field: path || '(body)', message: 'must not contain the NUL character (\\u0000)' };
    }
    if (typeof value === 'string' && LONE_SURROGATE.test(value)) {
      return {
        field: path || '(body)',
        message: 'must be well-formed Unicode (a \\uD800-\\uDFFF escape must come in a pair)',
      };
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= MAX_JSON_DEPTH)
      return { field: path || '(body)', message: `is nested deeper than ${MAX_JSON_DEPTH} levels` };
    for (const [key, child] of Object.entries(value)) {
      const childPath = Array.isArray(value) ? `${path}[${key}]` : path ? `${path}.${key}` : key;
      pending.push({ value: child, path: childPath, depth: depth + 1 });
    }
  }
  return null;
}
