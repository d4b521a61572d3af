import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { RequestStep } from '../request-step';
import { answeredStatus, errorTypeOf, methodOf, routeOf, schemeOf } from './http-semantics';
import { localsOf } from '../answer-locals';

/**
 * OpenTelemetry's recommended buckets for `http.server.request.duration`, in seconds: fine where
 * this service's answers fall (milliseconds), coarse up to its 10 s request timeout.
 */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

/**
 * The labels of `http.server.request.duration`: its attributes, dots made underscores. `error_type`
 * only on a request that failed (errorTypeOf), as the conventions ask: absent, not empty, otherwise.
 */
type DurationLabels = 'http_request_method' | 'url_scheme' | 'http_route' | 'http_response_status_code' | 'error_type';

/**
 * The HTTP server metrics of OpenTelemetry's semantic conventions, as Prometheus names them:
 * `http.server.request.duration` and `http.server.active_requests`, with their attributes as labels.
 */
export class HttpMetrics {
  readonly duration: Histogram<DurationLabels>;
  readonly active: Gauge<'http_request_method'>;
  /** Which problem each refusal was: the reason behind a status (a 429 is one of several limits). */
  readonly problems: Counter<'code'>;
  /** Which rate limit each 429 of one was, by its policy's name: never by address or account. */
  readonly rateLimitRefusals: Counter<'limit'>;
  /** Requests refused for a permission their restricted key lacks, by that permission. */
  readonly permissionRefusals: Counter<'permission'>;
  readonly replays: Counter;
  /** Requests whose Idempotency-Key is being honoured: the keys in use now (counted by idempotency.ts). */
  readonly keysInUse: Gauge;
  /** Keyed requests refused before they acted, past their account's hourly bound of keys or kept bytes. */
  readonly quotaRefusals: Counter<'quota'>;
  /**
   * The series of each method, route and status, found once: prom-client checks and hashes the
   * labels of every observation otherwise, which was most of what counting a request cost. The
   * keys are bounded as the labels are (methods, routes and statuses are few).
   */
  private readonly timed = new Map<string, Histogram.Internal<DurationLabels>>();
  private readonly activeByMethod = new Map<string, Gauge.Internal<'http_request_method'>>();

  constructor(registry: Registry) {
    this.duration = new Histogram({
      name: 'http_server_request_duration_seconds',
      help: 'Duration of HTTP server requests, from the request to the end of its answer (event streams aside).',
      labelNames: ['http_request_method', 'url_scheme', 'http_route', 'http_response_status_code', 'error_type'],
      buckets: DURATION_BUCKETS,
      registers: [registry],
    });
    this.active = new Gauge({
      name: 'http_server_active_requests',
      help: 'HTTP server requests being answered (event streams included).',
      labelNames: ['http_request_method'],
      registers: [registry],
    });
    this.problems = new Counter({
      name: 'tns_http_problems_total',
      help: 'Problem answers, by code (docs/errors.md): rate limits, refused keys, stream limits, conflicts, faults.',
      labelNames: ['code'],
      registers: [registry],
    });
    this.rateLimitRefusals = new Counter({
      name: 'tns_rate_limit_refusals_total',
      help:
        "Requests refused by a rate limit, by its policy: 'default' (per account), 'accounts' and " +
        "'accounts-network' (sign-up and sign-in per address and per network), 'anonymous' (requests " +
        "without a key per address), 'failed-keys' (unknown API keys per address).",
      labelNames: ['limit'],
      registers: [registry],
    });
    this.permissionRefusals = new Counter({
      name: 'tns_permission_refusals_total',
      help:
        'Requests refused (insufficient_permissions, 403) for the permission their restricted API key lacks, ' +
        "by that permission ('anchors:write', 'api_keys:manage', ...).",
      labelNames: ['permission'],
      registers: [registry],
    });
    this.replays = new Counter({
      name: 'tns_idempotency_replays_total',
      help: 'Requests answered with the kept answer of their Idempotency-Key, done once before.',
      registers: [registry],
    });
    this.keysInUse = new Gauge({
      name: 'tns_idempotency_keys_in_use',
      help: 'Requests with an Idempotency-Key being answered now (a retry of one of them waits or is refused).',
      registers: [registry],
    });
    this.quotaRefusals = new Counter({
      name: 'tns_idempotency_quota_refusals_total',
      help:
        'Requests with an Idempotency-Key refused before they acted, their account past its hourly bound ' +
        '(quota: keys, kept_bytes).',
      labelNames: ['quota'],
      registers: [registry],
    });
  }

  activeOf(method: string): Gauge.Internal<'http_request_method'> {
    let series = this.activeByMethod.get(method);
    if (!series) this.activeByMethod.set(method, (series = this.active.labels({ http_request_method: method })));
    return series;
  }

  /** `status`: the status answered, null for none (the client left first). */
  durationOf(method: string, scheme: string, route: string, status: number | null) {
    const key = `${method} ${scheme} ${route} ${status}`;
    let series = this.timed.get(key);
    if (!series) {
      const errorType = errorTypeOf(status);
      series = this.duration.labels({
        http_request_method: method,
        url_scheme: scheme,
        http_route: route,
        http_response_status_code: status === null ? '' : String(status),
        ...(errorType !== undefined && { error_type: errorType }),
      });
      this.timed.set(key, series);
    }
    return series;
  }
}

/**
 * Counts each request when its answer ends, or when its client leaves first: the scheme the client
 * used, the route template it matched (never the path: the label's values are the routes), empty
 * when none matched; the status answered, empty when none was; and why it failed, if it did. An
 * event stream is active while open, and not timed.
 */
export function httpMetrics(metrics: HttpMetrics): RequestStep {
  return (req, res) => {
    const started = process.hrtime.bigint();
    const method = methodOf(req);
    const active = metrics.activeOf(method);
    active.inc();
    res.once('close', () => {
      active.dec();
      const status = answeredStatus(res);
      // A stream's length is its client's choice, not the service's speed: it would swamp the
      // route's latency. Streams are counted by tns_event_streams_open instead.
      if (localsOf(res).eventStream !== true)
        metrics
          .durationOf(method, schemeOf(req), routeOf(req), status)
          .observe(Number(process.hrtime.bigint() - started) / 1e9);
      const { problemCode, limitRefused, permissionRefused } = localsOf(res);
      if (problemCode !== undefined) metrics.problems.inc({ code: problemCode });
      if (limitRefused !== undefined) metrics.rateLimitRefusals.inc({ limit: limitRefused });
      if (permissionRefused !== undefined) metrics.permissionRefusals.inc({ permission: permissionRefused });
      if (res.getHeader('Idempotent-Replayed') === 'true') metrics.replays.inc();
    });
  };
}
