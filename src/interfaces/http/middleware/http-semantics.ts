import type { Request, Response } from 'express';
import { localsOf } from '../answer-locals';

/** The methods OpenTelemetry names as they are; any other is `_OTHER`, so the values stay few. */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH']);

/** `http.request.method`: the method, or `_OTHER`. */
export function methodOf(req: Request): string {
  return KNOWN_METHODS.has(req.method) ? req.method : '_OTHER';
}

/**
 * `http.route`: the template of the route that answered, as Express matched it (`/timeline/:id`),
 * or '' (never the path: its values would have no bound). A route of several literal paths (the
 * account endpoints' rate limit) is the one of them requested.
 */
export function routeOf(req: Request): string {
  const path: unknown = req.route?.path;
  if (typeof path === 'string') return `${req.baseUrl}${path}`;
  return Array.isArray(path) && path.includes(req.path) ? `${req.baseUrl}${req.path}` : '';
}

/**
 * The status answered once the answer has ended: the one sent, the HTTP server's own refusal
 * (client-errors.ts), or null for an answer never started (its client left first).
 */
export function answeredStatus(res: Response): number | null {
  if (res.writableFinished || res.headersSent) return res.statusCode;
  return localsOf(res).refusedStatus ?? null;
}

/**
 * `url.scheme`: the scheme the client used, `https` or `http`; behind a proxy trusted with
 * TRUST_PROXY, the one its `X-Forwarded-Proto` names. Any other value counts as `http`, so that a
 * label's values stay two.
 */
export function schemeOf(req: Request): 'http' | 'https' {
  return req.protocol === 'https' ? 'https' : 'http';
}

/**
 * `error.type` by OpenTelemetry's HTTP server conventions: a 5xx status as text, `aborted` for an
 * answer never started (its client left first), none for the rest (a 4xx is the client's).
 */
export function errorTypeOf(status: number | null): string | undefined {
  if (status === null) return 'aborted';
  return status >= 500 ? String(status) : undefined;
}
