import type { Tracer } from '@opentelemetry/api';
import express, { type Express, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { Container } from 'inversify';
import { IdempotencyStore } from '../../core/ports/idempotency-store';
import { StreamSlots } from '../../core/ports/stream-slots';
import { AuthenticateApiKey } from '../../core/use-cases/accounts/authenticate-api-key';
import { AnswerKeyedRequest } from '../../core/use-cases/idempotency/answer-keyed-request';
import { KeptAnswers } from '../../core/use-cases/idempotency/kept-answers';
import { CountInProcess } from '../../core/use-cases/rate-limiting/count-in-process';
import { CountRequest } from '../../core/use-cases/rate-limiting/count-request';
import { DEFAULT_ADMISSION_LIMITS } from './admission/account-admission';
import type { AdmissionGate } from './admission/admission-gate';
import { LocalAdmission } from './admission/local-admission';
import { DEFAULT_FAIR_SHARE } from './admission/fair-share';
import { CsrfGuard } from './dashboard/csrf';
import { dashboardRouter } from './dashboard/dashboard-router';
import { KnownDevices } from './dashboard/known-device';
import { docsConsoleRouter } from './docs-console/docs-router';
import { EventStreams } from './event-stream/event-streams';
import { mountRoutes } from './express-routes';
import { answerHeaders } from './middleware/answer-headers';
import { authenticate } from './middleware/authenticate';
import { httpMetrics, type HttpMetrics } from './middleware/http-metrics';
import { traceRequests } from './middleware/trace-request';
import { idempotency } from './middleware/idempotency';
import { accountLimit, perAccount, perAccountPages } from './middleware/rate-limit';
import { perAddressAccounts, perAddressAnonymous } from './middleware/address-limits';
import { middlewareOf, runSteps } from './request-step';
import { sendAnswer } from './send-answer';
import {
  databaseFailureReason,
  failureReason,
  problemHandler,
  RETRY_AFTER_SECONDS,
  routeNotFound,
} from './middleware/problem-handler';
import { requestId } from './middleware/request-id';
import { requestLog } from './middleware/request-log';
import { serveOpenApi } from './openapi/serve';
import type { Route } from './route';
import { accountRoutes } from './routes/account-routes';
import { apiKeyRoutes } from './routes/api-key-routes';
import { familyARoutes } from './routes/family-a-routes';
import { familyBRoutes } from './routes/family-b-routes';
import { familyCRoutes } from './routes/family-c-routes';
import { webhookEndpointRoutes } from './routes/webhook-endpoint-routes';
import { localsOf } from './answer-locals';
import type { DatabaseFailureOf, DatabaseTimeout } from './database-failure';

export interface AppOptions {
  /** Where failures that are not the client's fault are reported. */
  readonly logError?: (error: unknown) => void;
  /** One JSON line per request when given (the service passes pino; tests usually do not). */
  readonly logger?: Logger;
  /**
   * Recognises a failure of the database itself, answered 503 with Retry-After (the client retries):
   * `service_unavailable` while it is out of reach, `operation_timed_out` when it gave up on the
   * request's statement at its bound.
   */
  readonly databaseFailureOf?: DatabaseFailureOf;
  /**
   * Hears each request the database's unavailability failed, with its reason in a line, instead of
   * `logError`: an outage is one condition (logged once by the listener), not a fault of every
   * request it fails.
   */
  readonly onUnavailable?: (reason: string, error: unknown) => void;
  /**
   * Hears each request whose statement the database gave up on at its bound, instead of `logError`
   * (the metrics count them): that request's own failure, neither an outage nor a fault.
   */
  readonly onTimedOut?: (reason: DatabaseTimeout) => void;
  /**
   * `GET /readyz`: the database answers and its migrations are applied; `failure`, what asking it
   * failed with, goes through `databaseFailureOf` and its listeners as a request's would.
   */
  readonly readiness?: () => Promise<{ readonly ready: boolean; readonly reason?: string; readonly failure?: unknown }>;
  /**
   * Express's 'trust proxy' (TRUST_PROXY): whether X-Forwarded-Proto/-For are believed, which makes
   * session cookies Secure behind an HTTPS proxy and throttles sign-ins by the real client address.
   */
  readonly trustProxy?: boolean | number | string;
  /** Signs the dashboard's CSRF tokens; every process behind one proxy must share it. */
  readonly formSecret: string;
  /**
   * Requests per account per second and account requests per client address per minute, counted in
   * the database so every process shares them, and requests without a key per client address per
   * minute, this process's share (counted in its memory); absent or 0 leaves that limit off.
   */
  readonly rateLimit?: {
    readonly perAccountPerSecond?: number;
    readonly accountsPerMinute?: number;
    readonly anonymousPerMinute?: number;
  };
  /** MiB of answers an account's Idempotency-Keys keep per hour (default DEFAULT_KEPT_MIB_PER_HOUR). */
  readonly keptAnswersMibPerHour?: number;
  /** Keyed requests an account may make per hour (default DEFAULT_KEYS_PER_HOUR). */
  readonly keptKeysPerHour?: number;
  /**
   * The process's open event streams, with their limits; the service ends them all when it stops
   * (server.ts). Default: streams with the default limits, owned by the app.
   */
  readonly eventStreams?: EventStreams;
  /**
   * How many API requests of one account run at once and wait (docs/decisions.md, "Requests in
   * flight"): a cluster's workers ask their primary. Default: counted in this process, default limits.
   */
  readonly admission?: AdmissionGate;
  /** The HTTP server metrics, counted for every request when given (METRICS_PORT set). */
  readonly metrics?: HttpMetrics;
  /** Makes each request a server span, continuing the caller's trace (tracing on: OTEL_*). */
  readonly tracer?: Tracer;
}

/**
 * The endpoints that cost a password check (scrypt, and zxcvbn for a new one), limited per client
 * address: the public account endpoints, and the dashboard's password change.
 */
const ACCOUNT_PATHS = ['/v1/accounts', '/signup', '/login', '/dashboard/password'];

/** Every operation the service runs; the route table the OpenAPI document is built from. */
export function allRoutes(container: Container): Route[] {
  return [
    ...accountRoutes(container),
    ...familyARoutes(container),
    ...familyBRoutes(container),
    ...familyCRoutes(container),
    ...webhookEndpointRoutes(container),
    ...apiKeyRoutes(container),
  ];
}

/** Builds the HTTP app over a wired container; listening is the caller's business (see server.ts). */
export function createApp(container: Container, options: AppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  // Every answer is computed for its request and none is served conditionally: hashing each body
  // for an ETag would cost every request and save none (docs/performance.md).
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.set('trust proxy', options.trustProxy ?? false);
  // The request's span first: what follows runs in its context.
  if (options.tracer) app.use(traceRequests(options.tracer));
  // Then, so every answer has them, 404s and problems included: one layer (request-step.ts).
  app.use(
    middlewareOf([
      answerHeaders,
      requestId,
      ...(options.logger ? [requestLog(options.logger)] : []),
      ...(options.metrics ? [httpMetrics(options.metrics)] : []),
    ]),
  );
  const countRequest = container.get(CountRequest);
  const { perAccountPerSecond = 0, accountsPerMinute = 0, anonymousPerMinute = 0 } = options.rateLimit ?? {};
  // What carries no key an operation checks is counted per address, in this process (address-limits.ts).
  const keyless =
    anonymousPerMinute > 0 ? [perAddressAnonymous(container.get(CountInProcess), anonymousPerMinute)] : [];
  // Liveness for the container's HEALTHCHECK and the proxy: no key, no data. Ahead of the routes:
  // probed every few seconds, it walks no other.
  app.get('/healthz', async (req, res) => {
    await runSteps(keyless, req, res);
    sendAnswer(res, { status: 200, body: { status: 'ok' } });
  });
  // Ahead of the public account operation and the dashboard's forms, so that it counts them first.
  if (accountsPerMinute > 0)
    app.post(ACCOUNT_PATHS, middlewareOf([perAddressAccounts(countRequest, accountsPerMinute)]));
  // The per-account limit needs the principal, so it runs right after authentication.
  const authenticated = [
    authenticate(container.get(AuthenticateApiKey), keyless),
    ...(perAccountPerSecond > 0 ? [perAccount(countRequest, perAccountPerSecond)] : []),
  ];
  const { logFault, databaseFailureOf, isUnavailable, onUnavailable, report } = failureReports(options);
  // The API first: its requests are nearly all of them, and Express tries routes in order. The
  // pages' paths and the API's do not overlap, so the order changes no answer.
  const streaming = {
    streams: options.eventStreams ?? new EventStreams(container.get(StreamSlots)),
    endings: { isUnavailable, onUnavailable, logError: report },
    accountLimit: perAccountPerSecond > 0 ? accountLimit(countRequest, perAccountPerSecond) : undefined,
  };
  const keptAnswers = new KeptAnswers(countRequest, {
    mibPerHour: options.keptAnswersMibPerHour,
    keysPerHour: options.keptKeysPerHour,
  });
  const routes = allRoutes(container);
  mountRoutes(app, routes, authenticated, {
    keyless,
    idempotent: idempotency(new AnswerKeyedRequest(container.get(IdempotencyStore), keptAnswers), options.metrics),
    streaming,
    admission:
      options.admission ??
      new LocalAdmission({ ...DEFAULT_ADMISSION_LIMITS, startsPerSecond: perAccountPerSecond }, DEFAULT_FAIR_SHARE),
    afterBody: perAccountPerSecond > 0 ? [perAccountPages(countRequest, perAccountPerSecond)] : [],
  });
  // Past the API's operations, no request carries a key that anything checks.
  if (keyless.length > 0) app.use(middlewareOf(keyless));
  app.get('/openapi.json', serveOpenApi(routes));
  // The balancer's probe may be the only request in a quiet moment, so an outage it finds is
  // reported as any request's.
  app.get('/readyz', readyz(options.readiness, { databaseFailureOf, report, logFault }));
  const csrf = new CsrfGuard(options.formSecret);
  app.use(dashboardRouter(container, csrf, new KnownDevices(options.formSecret)));
  app.use(docsConsoleRouter(container, csrf));
  app.use(routeNotFound);
  app.use(problemHandler(report, databaseFailureOf));
  return app;
}

/** Where the failures that are not a problem the service chose go: an outage, a timeout, or a fault. */
function failureReports(options: AppOptions) {
  const logFault =
    options.logError ??
    (options.logger ? (error: unknown) => options.logger?.error({ err: error }, 'request failed') : console.error);
  const databaseFailureOf = options.databaseFailureOf ?? (() => null);
  const isUnavailable = (error: unknown) => databaseFailureOf(error) === 'unavailable';
  const onUnavailable = (reason: string, error: unknown) => options.onUnavailable?.(reason, error);
  const report = (error: unknown) => {
    const failure = databaseFailureOf(error);
    if (failure === null) logFault(error);
    else if (failure === 'unavailable') onUnavailable(failureReason(error), error);
    else options.onTimedOut?.(failure);
  };
  return { logFault, databaseFailureOf, isUnavailable, onUnavailable, report };
}

/** How /readyz reports what asking the database failed with: as a request's failure of the database, or as a fault. */
interface ReadinessFailures {
  readonly databaseFailureOf: DatabaseFailureOf;
  /** A failure of the database, heard as a request's (an outage logged once, a timeout counted). */
  readonly report: (error: unknown) => void;
  readonly logFault: (error: unknown) => void;
}

/** Ready for traffic or not (503), with no detail beyond a reason an operator can act on. */
function readyz(readiness: AppOptions['readiness'], failures: ReadinessFailures): RequestHandler {
  // A fault is logged whole once, until the service is ready again: the balancer probes every few
  // seconds, and each probe's own line carries its reason.
  let faultLogged = false;
  return async (_req, res) => {
    const state = readiness ? await readiness() : { ready: true };
    const failure = state.failure;
    const ofDatabase = failure === undefined ? null : failures.databaseFailureOf(failure);
    if (ofDatabase !== null) {
      // As a request the database fails: an outage's one line or a timeout's count, and the reason
      // on this request's.
      failures.report(failure);
      localsOf(res).failureReason = databaseFailureReason(ofDatabase, failure);
    } else if (failure !== undefined) {
      if (!faultLogged) failures.logFault(failure);
      faultLogged = true;
      localsOf(res).failureReason = `readiness check failed: ${failureReason(failure)}`;
    }
    if (state.ready) faultLogged = false;
    // As every 503 of the service: a client or proxy that honours it polls no faster than needed.
    sendAnswer(
      res,
      state.ready
        ? { status: 200, body: { status: 'ready' } }
        : {
            status: 503,
            body: { status: 'not ready', reason: state.reason },
            headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
          },
    );
  };
}
