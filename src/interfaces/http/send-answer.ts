import type { Response } from 'express';
import type { KeptResponse } from '../../core/ports/idempotency-store';
import type { HttpResponse } from './route';
import { localsOf } from './answer-locals';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * Sends an answer of the API: its status, its headers, its body as JSON (written here, or already
 * written, as a keyed request's answer is). What Express's `res.status().set().json()` does for
 * these answers, less its steps that do nothing here or cost the most: the body measured apart from
 * the bytes written, the conditional-request check (no answer is served conditionally), the charset
 * looked up for a Content-Type that names its own. Node drops the body of an answer to HEAD.
 */
export function sendAnswer(res: Response, answer: HttpResponse | KeptResponse): void {
  if (answer.status === NO_CONTENT) return sendNoContent(res, answer);
  let json: string;
  if ('json' in answer) {
    // A keyed request's answer, written when it was kept; the idempotency step named its problem.
    json = answer.json;
  } else {
    nameProblem(res, answer);
    json = JSON.stringify(answer.body) ?? 'null';
  }
  // As bytes, not text: Node prepends the headers to a text body, a copy of the answer on the
  // heap before it is written; a Buffer is written after them as it is, and knows its length.
  const body = Buffer.from(json);
  res.statusCode = answer.status;
  const headers = answer.headers;
  if (headers) for (const name in headers) res.setHeader(name, headers[name]);
  if (!res.hasHeader('Content-Type')) res.setHeader('Content-Type', JSON_CONTENT_TYPE);
  res.setHeader('Content-Length', body.length);
  res.end(body);
}

const NO_CONTENT = 204;

/** A 204 has no body, so neither a Content-Type nor a Content-Length (RFC 9110, 8.6 and 15.3.5). */
function sendNoContent(res: Response, answer: HttpResponse | KeptResponse): void {
  res.statusCode = NO_CONTENT;
  const headers = answer.headers;
  if (headers) for (const name in headers) res.setHeader(name, headers[name]);
  res.end();
}

/** For the request log: which problem an answer is (a 429 may be any of several limits). */
export function nameProblem(res: Response, answer: HttpResponse): void {
  if (answer.status < 400) return;
  const code = (answer.body as { code?: unknown } | null)?.code;
  if (typeof code === 'string') localsOf(res).problemCode = code;
}
