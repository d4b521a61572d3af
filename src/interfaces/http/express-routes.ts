import { trace } from '@opentelemetry/api';
import { MAX_PATH_PARAMETER_LENGTH } from './dtos/limits';
import type { IRouter, Request, RequestHandler, Response } from 'express';
import type { Principal } from '../../core/use-cases/accounts/authenticate-api-key';
import { type AdmissionGate, LeftTheQueue } from './admission/admission-gate';
import type { EventStreams, StreamEndings } from './event-stream/event-streams';
import { type IdempotentResponder, refuseIdempotencyKey } from './middleware/idempotency';
import { type AccountLimit, pagesAsked } from './middleware/rate-limit';
import type { RequestCost } from '../../cluster/admission-terms';
import { weightOf } from './admission/request-weights';
import { jsonBody } from './middleware/json-body';
import { requirePermission } from './middleware/permission';
import { utf8Query } from './middleware/utf8-query';
import { type FieldError, Problem } from './problem';
import { runSteps, type RequestStep } from './request-step';
import { sendAnswer } from './send-answer';
import { honoursIdempotencyKey, type Route } from './route';
import { localsOf } from './answer-locals';
import { passwordClientOf } from './password-client';

/** Where routes that stream hand their streams: the process's open streams, and how their ends are logged. */
export interface Streaming {
  readonly streams: EventStreams;
  readonly endings: StreamEndings;
  /** The per-account rate limit, which a stream's catch-up pays as it goes (none: unlimited). */
  readonly accountLimit?: AccountLimit;
}

/** What the authenticated routes go through besides their steps; each optional. */
export interface RouteGates {
  /** Honours an authenticated POST's `Idempotency-Key`. */
  readonly idempotent?: IdempotentResponder;
  /** Serves a GET asking for `text/event-stream` of a route that streams. */
  readonly streaming?: Streaming;
  /** Bounds an account's operations running at once (an event stream only while it opens). */
  readonly admission?: AdmissionGate;
  /** Steps of an authenticated route that need its parsed body (what a page asked for costs). */
  readonly afterBody?: readonly RequestStep[];
  /**
   * Steps ahead of what no key is checked for: the routes open to anyone, and the 405s of the API's
   * paths (the anonymous allowance of the address).
   */
  readonly keyless?: readonly RequestStep[];
}

/**
 * Mounts transport-free routes on `router` (the app itself: a router nested in it would be one more
 * layer every request walks), each as one handler running its steps, `authenticated` first where
 * the route needs a key, then its operation through `gates`.
 */
export function mountRoutes(
  router: IRouter,
  routes: readonly Route[],
  authenticated: readonly RequestStep[],
  gates: RouteGates = {},
): void {
  const { idempotent, streaming, admission, afterBody = [], keyless = [] } = gates;
  for (const route of routes) {
    // Express answers HEAD with the GET handler; a GET that registers something must not run twice.
    if (route.method === 'get' && route.changesState) router.head(route.path, methodNotAllowed(keyless, 'GET'));
    // The permission right after the key and its count: before the body is read or anything acts.
    const steps: RequestStep[] =
      route.scope !== null
        ? [
            ...authenticated,
            requirePermission(route.scope),
            ...(route.keepsNoAnswer ? [refuseIdempotencyKey] : []),
            utf8Query,
            jsonBody,
            ...afterBody,
          ]
        : [...keyless, utf8Query, jsonBody];
    const keyed = idempotent && honoursIdempotencyKey(route) ? idempotent : null;
    router[route.method](route.path, async (req, res) => {
      await runSteps(steps, req, res);
      const principal: Principal | null = localsOf(res).principal ?? null;
      const stream = route.stream;
      if (stream && streaming && principal && asksForStream(req)) {
        const request = { body: req.body, query: req.query, params: pathParameters(req.params) };
        // An empty Last-Event-ID is none, as the event stream standard reads an empty id.
        const open = () => stream({ ...request, lastEventId: req.get('Last-Event-ID') || undefined }, principal);
        // Its opening (up to its first page read) is one of the account's requests in flight; once
        // open, for hours, it is not: its limits and its paced catch-up bound it then.
        const start = admission ? () => admitted(admission, principal.accountId, res, ORDINARY, open) : open;
        try {
          return await streaming.streams.serve(res, principal, start, streaming.endings, streaming.accountLimit);
        } catch (error) {
          // Its client is gone while it waited its turn, and nothing ran: there is no one to answer.
          if (!(error instanceof LeftTheQueue)) throw error;
          return;
        }
      }
      // An operation open to anyone is told its client, whose turn its password work takes.
      const client = route.scope !== null ? undefined : passwordClientOf(req, res);
      const respond = () =>
        route.invoke({ body: req.body, query: req.query, params: pathParameters(req.params), client }, principal);
      const operate = () => (keyed ? keyed(req, res, respond) : respond());
      if (!admission || !principal) return sendAnswer(res, await operate());
      try {
        const cost = { cost: pagesAsked(req), weight: weightOf(req) };
        sendAnswer(res, await admitted(admission, principal.accountId, res, cost, operate));
      } catch (error) {
        // Its client is gone and nothing ran: there is no one to answer.
        if (!(error instanceof LeftTheQueue)) throw error;
      }
    });
  }
  for (const [path, { methods, headAllowed }] of methodsByPath(routes)) {
    router.all(
      path,
      methodNotAllowed(
        keyless,
        [...methods, ...(headAllowed ? ['HEAD'] : [])].join(', '),
        unversionedTwin(path, routes),
      ),
    );
  }
}

/** What an ordinary request costs: one request against the rate limit, one weight of the instance's work. */
const ORDINARY: RequestCost = { cost: 1, weight: 1 };

/**
 * Runs `operate` once the request's turn comes (its account's pace counting `cost.cost`, the
 * instance's fair share `cost.weight`), and lets the next request run after it. A wait shows on the
 * request's log line and its span.
 */
async function admitted<T>(
  gate: AdmissionGate,
  accountId: string,
  res: Response,
  cost: RequestCost,
  operate: () => Promise<T>,
): Promise<T> {
  // A client gone while the request's steps ran has had its 'close' already.
  const whenGone = (listener: () => void) => (res.closed ? listener() : res.once('close', listener));
  const { leave, queuedMs, pacedMs, busyMs, loopMs } = await gate.enter(accountId, whenGone, cost);
  const waitedMs = queuedMs + pacedMs + busyMs + loopMs;
  if (waitedMs >= 1) {
    localsOf(res).turnWaitMs = Math.round(waitedMs);
    trace.getActiveSpan()?.addEvent('waited for its turn', {
      queued_ms: Math.round(queuedMs),
      paced_ms: Math.round(pacedMs),
      busy_ms: Math.round(busyMs),
      loop_ms: Math.round(loopMs),
      weight: cost.weight,
    });
  }
  try {
    return await operate();
  } finally {
    leave();
  }
}

/** A GET (not a HEAD) whose client prefers an event stream to JSON. */
function asksForStream(req: Request): boolean {
  return req.method === 'GET' && req.accepts(['application/json', 'text/event-stream']) === 'text/event-stream';
}

/**
 * Path parameters are identifiers: refuse what no identifier can be before it reaches a query.
 * A plain loop: every request with a parameter in its path passes here.
 */
function pathParameters(raw: Record<string, string | string[]>): Record<string, string> {
  const params: Record<string, string> = {};
  const faults: FieldError[] = [];
  for (const field in raw) {
    const value = String(raw[field]);
    params[field] = value;
    if (value.includes('\u0000')) faults.push({ field, message: 'must not contain the NUL character' });
    else if (value.length > MAX_PATH_PARAMETER_LENGTH)
      faults.push({ field, message: `must be at most ${MAX_PATH_PARAMETER_LENGTH} characters` });
  }
  if (faults.length > 0) throw Problem.validation(faults);
  return params;
}

function methodNotAllowed(keyless: readonly RequestStep[], allow: string, twin?: UnversionedTwin): RequestHandler {
  return async (req, res) => {
    await runSteps(keyless, req, res);
    const elsewhere = twin?.methods.has(req.method) ? twin.path : undefined;
    const hint = elsewhere ? ` ${req.method} ${elsewhere} is the operation you may be looking for.` : '';
    const headers: Record<string, string> = elsewhere
      ? { Allow: allow, Link: `<${elsewhere}>; rel="alternate"` }
      : { Allow: allow };
    throw new Problem(
      405,
      'method_not_allowed',
      `${req.method} is not allowed here; use ${allow}.${hint}`,
      {},
      headers,
    );
  };
}

interface UnversionedTwin {
  readonly path: string;
  readonly methods: ReadonlySet<string>;
}

/**
 * The spec writes the timeline reads without a version prefix (`GET /timelines`) beside
 * `POST /v1/timelines`: a method refused on a versioned path is pointed at the same path without
 * the prefix when that path serves it.
 */
function unversionedTwin(path: string, routes: readonly Route[]): UnversionedTwin | undefined {
  const bare = path.replace(/^\/(api\/)?v\d+(?=\/)/, '');
  if (bare === path) return undefined;
  const methods = new Set(routes.filter((route) => route.path === bare).map((route) => route.method.toUpperCase()));
  return methods.size > 0 ? { path: bare, methods } : undefined;
}

function methodsByPath(routes: readonly Route[]): Map<string, { methods: string[]; headAllowed: boolean }> {
  const paths = new Map<string, { methods: string[]; headAllowed: boolean }>();
  for (const route of routes) {
    const known = paths.get(route.path) ?? { methods: [], headAllowed: false };
    const safeGet = route.method === 'get' && !route.changesState;
    paths.set(route.path, {
      methods: [...known.methods, route.method.toUpperCase()],
      headAllowed: known.headAllowed || safeGet,
    });
  }
  return paths;
}
