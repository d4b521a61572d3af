import type { RequestStep } from '../request-step';

/**
 * The headers every answer starts with (docs/decisions.md, "Caching and content sniffing"):
 * - `X-Content-Type-Options: nosniff`: a JSON or problem body is never read by a browser as a
 *   script or a page, whatever it contains;
 * - `Cache-Control: no-store`: answers hold an account's state, and some the secret of an API key
 *   (a sign-up, a key created or rolled); no cache, shared or the browser's, may keep one. The
 *   few public static files (the console's and the dashboard's assets) set their own.
 */
export const ANSWER_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-store',
};
const ANSWER_HEADER_ENTRIES = Object.entries(ANSWER_HEADERS);

export const answerHeaders: RequestStep = (_req, res) => {
  // Node's own setHeader: Express's `res.set` adds a charset only to Content-Type, which is not here.
  for (const [name, value] of ANSWER_HEADER_ENTRIES) res.setHeader(name, value);
};
