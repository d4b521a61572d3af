import type { ClassConstructor } from 'class-transformer';
import type { Scope } from '../../core/domain/api-key-permissions';
import type { PasswordClient } from '../../core/ports/password-work';
import type { Principal } from '../../core/use-cases/accounts/authenticate-api-key';
import type { EventStreamSource } from './event-stream/event-stream-source';
import { Problem } from './problem';
import { validateInput } from './validation/validate-input';

export type Family = 'A' | 'B' | 'C' | 'accounts' | 'api-keys' | 'webhooks';

/** What an operation does to what it names: read it (GET), act (POST), change it (PATCH), or remove it (DELETE). */
export type Method = 'get' | 'post' | 'patch' | 'delete';

/**
 * What the OpenAPI document says about an operation beyond its input classes. The handler never
 * reads it; `documentationGaps` (openapi/coverage.ts) fails a test when a route lacks it.
 */
export interface RouteDocs {
  /** What the operation does beyond its summary, for the operation's `description`. */
  readonly description: string;
  /**
   * The success status and the documentation-only class describing its body (dtos/responses);
   * null for an answer without one (204).
   */
  readonly status: number;
  readonly response: ClassConstructor<object> | null;
  /** Error codes of this operation beyond those every operation can answer (validation, auth, ...). */
  readonly errors: readonly string[];
  /** A typical request: the JSON body, or a GET's parameters. Required when the route takes input. */
  readonly example?: Readonly<Record<string, unknown>>;
  /** Response headers of the success, by name, with what they carry. */
  readonly headers?: Readonly<Record<string, string>>;
}

export interface HttpResponse {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** What the transport hands a route: untrusted, not yet validated. */
export interface RawRequest {
  readonly body: unknown;
  readonly query: unknown;
  readonly params: Readonly<Record<string, string>>;
  /**
   * Who sent it, for the operations open to anyone (signing up): their password work takes its
   * turn by client address. The transport gives it to those alone.
   */
  readonly client?: PasswordClient;
}

/**
 * One operation of the API, independent of Express: its method, path, documentation and input
 * classes, and how it answers. The Express adapter mounts these; the OpenAPI document reads them.
 */
export interface Route {
  readonly method: Method;
  readonly path: string;
  readonly operationId: string;
  readonly family: Family;
  readonly summary: string;
  /**
   * The one permission an operation needs (its scope in the OpenAPI document), checked right after
   * its key; null for an operation open to anyone, which takes no key: whether a route needs a key
   * is whether it has a scope.
   */
  readonly scope: Scope | null;
  /** A GET that registers something (Family A's retrieve-item): HEAD must not run it. */
  readonly changesState?: boolean;
  /**
   * A POST whose answer carries a secret the service keeps nowhere (a new API key): an
   * `Idempotency-Key`, which would keep the answer, is refused rather than honoured.
   */
  readonly keepsNoAnswer?: boolean;
  readonly body?: ClassConstructor<object>;
  readonly query?: ClassConstructor<object>;
  readonly docs?: RouteDocs;
  invoke(request: RawRequest, principal: Principal | null): Promise<HttpResponse>;
  /**
   * Answers a GET that asks for `text/event-stream` with a stream of Server-Sent Events instead
   * (the JSON answer otherwise); `lastEventId` is the header a reconnecting client sends.
   */
  readonly stream?: (request: StreamRequest, principal: Principal | null) => Promise<EventStreamSource>;
}

export interface StreamRequest extends RawRequest {
  readonly lastEventId: string | undefined;
}

interface Definition<B extends object, Q extends object> {
  readonly method: Method;
  readonly path: string;
  readonly operationId: string;
  readonly family: Family;
  readonly summary: string;
  /** The permission the operation needs: docs/api.md, "Permissions", says which for which. */
  readonly scope: Scope;
  readonly changesState?: boolean;
  readonly keepsNoAnswer?: boolean;
  readonly body?: ClassConstructor<B>;
  readonly query?: ClassConstructor<Q>;
  readonly docs?: RouteDocs;
}

interface Valid<B, Q> {
  readonly body: B;
  readonly query: Q;
  readonly params: Readonly<Record<string, string>>;
}

/**
 * An operation that needs an API key; its handler acts for the key's account. `stream`, for a GET,
 * answers it as an event stream when the client asks for one, with the same parameters.
 */
export function defineRoute<B extends object = object, Q extends object = object>(
  definition: Definition<B, Q>,
  handle: (request: Valid<B, Q>, principal: Principal) => Promise<HttpResponse>,
  stream?: (request: Valid<B, Q>, principal: Principal, lastEventId: string | undefined) => Promise<EventStreamSource>,
): Route {
  return {
    ...definition,
    invoke: (request, principal) => handle(validate(definition, request), authenticated(principal)),
    ...(stream && {
      stream: (request: StreamRequest, principal: Principal | null) =>
        stream(validate(definition, request), authenticated(principal), request.lastEventId),
    }),
  };
}

/** An authenticated POST keeps its answer under an `Idempotency-Key` (docs/decisions.md), but one carrying a secret. */
export function honoursIdempotencyKey(route: Route): boolean {
  return route.scope !== null && route.method === 'post' && route.keepsNoAnswer !== true;
}

/** The adapter authenticates first; this guards against a route mounted without it. */
function authenticated(principal: Principal | null): Principal {
  if (!principal) throw new Problem(401, 'missing_api_key', 'This operation needs an API key.');
  return principal;
}

/** An operation open to anyone (signing up); its handler is told who sent it. */
export function definePublicRoute<B extends object = object, Q extends object = object>(
  definition: Omit<Definition<B, Q>, 'scope'>,
  handle: (request: Valid<B, Q>, client: PasswordClient) => Promise<HttpResponse>,
): Route {
  return {
    ...definition,
    scope: null,
    invoke: (request) => handle(validate(definition, request), clientOf(request)),
  };
}

/** The adapter gives an open operation its client; this guards against a route mounted without it. */
function clientOf(request: RawRequest): PasswordClient {
  if (!request.client) throw new Error(`an operation open to anyone was not given its client`);
  return request.client;
}

function validate<B extends object, Q extends object>(
  definition: Omit<Definition<B, Q>, 'scope'>,
  request: RawRequest,
): Valid<B, Q> {
  // Proxies and many clients drop GET bodies, so a GET takes its parameters from either place.
  const query = definition.method === 'get' ? getParameters(request) : request.query;
  const body = definition.method === 'get' ? undefined : request.body;
  return {
    body: definition.body ? validateInput(definition.body, body ?? {}) : noInput<B>(body, '(body)'),
    query: definition.query ? validateInput(definition.query, query ?? {}) : noInput<Q>(query, '(query)'),
    params: request.params,
  };
}

/** The query string and a JSON body merged; one parameter given both ways must agree. */
function getParameters(request: RawRequest): unknown {
  const { query, body } = request;
  // A GET body of `null` says nothing, like no body at all.
  if (body === undefined || body === null || (isRecord(body) && Object.keys(body).length === 0)) return query;
  if (!isRecord(body)) return body; // validateInput explains that it must be an object
  const fromQuery = isRecord(query) ? query : {};
  const conflicts = Object.keys(fromQuery).filter(
    (name) => name in body && !sameParameter(body[name], fromQuery[name]),
  );
  if (conflicts.length > 0) {
    throw Problem.validation(
      conflicts.map((field) => ({
        field,
        message: 'is given in both the query string and the body, with different values',
      })),
    );
  }
  return { ...fromQuery, ...body };
}

/** A query string carries text: `5` in the body and `?limit=5` agree; a repeated `?a=1&a=2` is a list. */
function sameParameter(fromBody: unknown, fromQuery: unknown): boolean {
  const structured = typeof fromBody === 'object' || typeof fromQuery === 'object';
  return structured ? JSON.stringify(fromBody) === JSON.stringify(fromQuery) : String(fromBody) === String(fromQuery);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An operation without input still refuses input it would silently ignore. */
function noInput<T extends object>(value: unknown, where: string): T {
  const empty = value === undefined || (typeof value === 'object' && value !== null && Object.keys(value).length === 0);
  if (!empty) throw Problem.validation([{ field: where, message: 'this operation takes no parameters here' }]);
  return Object.create(null);
}
