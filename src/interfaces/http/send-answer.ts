import type { Response } from 'express';
import type { HttpResponse } from './route';
import { localsOf } from './answer-locals';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * Sends an answer of the API: its status, its headers, its body as JSON. What Express's
 * `res.status().set().json()` does for these answers, less its steps that do nothing here or cost
 * the most: a body of 1,000 characters or more copied into a Buffer only to be measured (an event
 * page is 40 KB), the conditional-request check (no answer is served conditionally), the charset
 * looked up for a Content-Type that names its own. Node drops the body of an answer to HEAD.
 */
export function sendAnswer(res: Response, answer: HttpResponse): void {
  // For the request log: which problem it was (a 429 may be any of several limits), kept answers
  // of an Idempotency-Key included.
  const code = answer.status >= 400 ? (answer.body as { code?: unknown } | null)?.code : undefined;
  if (typeof code === 'string') localsOf(res).problemCode = code;
  const text = JSON.stringify(answer.body) ?? 'null';
  res.statusCode = answer.status;
  const headers = answer.headers;
  if (headers) for (const name in headers) res.setHeader(name, headers[name]);
  if (!res.hasHeader('Content-Type')) res.setHeader('Content-Type', JSON_CONTENT_TYPE);
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}
