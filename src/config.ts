import type { Env } from './config-values';
import type { AdmissionLimits } from './interfaces/http/admission/account-admission';
import type { FairShareLimits } from './interfaces/http/admission/fair-share';
import { DEFAULT_STREAM_LIMITS, type EventStreamLimits } from './interfaces/http/event-stream/event-streams';
import { type LogLevel, RETIRED, SETTINGS, type Settings } from './settings';

/**
 * Settings read from the environment once at start, each checked with a message that says what is
 * wrong. What each means is said once, in the table of settings (settings.ts), by its variable.
 */
export interface Config {
  readonly port: number;
  readonly host: string;
  readonly metricsPort: number | undefined;
  readonly metricsHost: string;
  /** Absent: the embedded database, in `dataDir`. */
  readonly databaseUrl: string | undefined;
  readonly databaseDirectUrl: string | undefined;
  readonly serviceReplicas: number;
  /** Counted only behind a pooler: absent without DATABASE_DIRECT_URL. */
  readonly databasePoolerConnections: number | undefined;
  readonly dataDir: string;
  readonly trustProxy: boolean | number | string;
  readonly csrfSecret: string | undefined;
  readonly logLevel: LogLevel;
  readonly rateLimitPerSecond: number;
  readonly rateLimitAccountsPerMinute: number;
  readonly rateLimitAnonymousPerMinute: number;
  readonly apiKeyFailuresPerMinute: number;
  readonly idempotencyKeptMibPerHour: number;
  readonly idempotencyKeysPerHour: number;
  /** ACCOUNT_REQUESTS_RUNNING and _QUEUED, started at the pace of RATE_LIMIT_PER_SECOND. */
  readonly accountRequests: AdmissionLimits;
  /** INSTANCE_WORK_RUNNING, INSTANCE_HEAVY_WORK_RUNNING and INSTANCE_REQUESTS_QUEUED. */
  readonly instanceWork: FairShareLimits;
  /** HEAVY_WORK_LOOP_PERCENT: how busy the event loop may be for a heavier request to start. */
  readonly heavyWorkLoopPercent: number;
  /** PASSWORD_CHECK_THREADS and PASSWORD_CHECKS_QUEUED. */
  readonly passwordChecks: { readonly threads: number; readonly queued: number };
  readonly shutdownGraceMs: number;
  readonly webConcurrency: number;
  readonly databasePoolSize: number;
  readonly apiKeyCacheSize: number;
  readonly databasePreparedStatements: boolean;
  readonly databaseTimeoutMs: number;
  readonly httpRequestTimeoutMs: number;
  readonly httpHeadersTimeoutMs: number;
  readonly httpKeepAliveTimeoutMs: number;
  /** EVENT_STREAMS_PER_PROCESS, EVENT_STREAMS_PER_ACCOUNT and EVENT_STREAM_HEARTBEAT_MS. */
  readonly eventStreams: EventStreamLimits;
  /** WEBHOOK_RETRY_SCHEDULE: the seconds to wait before each retry of a webhook message. */
  readonly webhookRetrySchedule: readonly number[];
  /** WEBHOOK_ALLOW_PRIVATE_URLS: endpoints may be http and point at private addresses. */
  readonly webhookAllowPrivateUrls: boolean;
}

export class ConfigError extends Error {}

export function readConfig(env: Env): Config {
  const problems: string[] = [];
  for (const [variable, replacement] of Object.entries(RETIRED))
    if (env[variable] !== undefined) problems.push(`${variable} is now ${replacement}`);
  const settings = SETTINGS.read(env, problems);
  // A rule across settings means something only once each of them reads right: a refused value
  // stands in as its fallback, which a rule would misread (an unset DATABASE_URL).
  if (problems.length === 0) problems.push(...RULES.flatMap((rule) => rule({ ...settings, env }) ?? []));
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n- ${problems.join('\n- ')}`);
  return shaped(settings);
}

/** The settings as the service takes them: the limits of one mechanism together. */
function shaped(settings: Settings): Config {
  const {
    acceptEmbeddedDatabase,
    accountRequestsRunning,
    accountRequestsQueued,
    streamsPerProcess,
    streamHeartbeatMs,
    streamsPerAccount,
    instanceWorkRunning,
    instanceHeavyWorkRunning,
    instanceRequestsQueued,
    passwordCheckThreads,
    passwordChecksQueued,
    databasePoolerConnections,
    ...plain
  } = settings;
  return {
    ...plain,
    databasePoolerConnections: settings.databaseDirectUrl === undefined ? undefined : databasePoolerConnections,
    passwordChecks: { threads: passwordCheckThreads, queued: passwordChecksQueued },
    // An account's requests start spread over the second at its rate limit (docs/decisions.md).
    accountRequests: {
      running: accountRequestsRunning,
      queued: accountRequestsQueued,
      startsPerSecond: settings.rateLimitPerSecond,
    },
    instanceWork: {
      running: instanceWorkRunning,
      heavyRunning: instanceHeavyWorkRunning,
      queued: instanceRequestsQueued,
    },
    eventStreams: {
      perProcess: streamsPerProcess,
      perAccount: streamsPerAccount,
      heartbeatMs: streamHeartbeatMs,
      retryMs: DEFAULT_STREAM_LIMITS.retryMs,
    },
  };
}

type Rule = (read: Settings & { readonly env: Env }) => string | null;

/** Rules across settings, each a problem when broken. */
const RULES: readonly Rule[] = [
  ({ metricsPort, port }) =>
    metricsPort !== undefined && metricsPort !== 0 && metricsPort === port
      ? `METRICS_PORT must differ from PORT (${port}): the metrics never share the public listener.`
      : null,
  // A deployment (NODE_ENV=production: the container) on the embedded database must say it accepts
  // what that database does not survive (docs/operations.md#power-loss).
  ({ databaseUrl, acceptEmbeddedDatabase, env }) =>
    !databaseUrl && env.NODE_ENV?.trim() === 'production' && !acceptEmbeddedDatabase
      ? 'NODE_ENV=production without DATABASE_URL would keep the data in the embedded database, which a power ' +
        'loss can roll back or corrupt (docs/operations.md#power-loss): set DATABASE_URL to a PostgreSQL ' +
        'server, or ACCEPT_EMBEDDED_DATABASE=on to run on the embedded database anyway.'
      : null,
  ({ webConcurrency, databaseUrl }) =>
    webConcurrency > 1 && !databaseUrl
      ? `WEB_CONCURRENCY=${webConcurrency} needs DATABASE_URL: ` +
        'the embedded database (PGlite) can only be used by one process. ' +
        'Set DATABASE_URL to a PostgreSQL server, or WEB_CONCURRENCY=1.'
      : null,
  ({ databaseDirectUrl, databaseUrl }) =>
    databaseDirectUrl && !databaseUrl
      ? 'DATABASE_DIRECT_URL needs DATABASE_URL: it names the server behind the pooler DATABASE_URL names.'
      : null,
  ({ databaseDirectUrl, env }) =>
    !databaseDirectUrl && env.DATABASE_POOLER_CONNECTIONS?.trim()
      ? 'DATABASE_POOLER_CONNECTIONS is counted only behind a pooler: set DATABASE_DIRECT_URL too, or unset it.'
      : null,
  // Node refuses a head allowed longer than the whole request.
  ({ httpHeadersTimeoutMs, httpRequestTimeoutMs }) =>
    httpHeadersTimeoutMs > httpRequestTimeoutMs
      ? `HTTP_HEADERS_TIMEOUT_MS (${httpHeadersTimeoutMs}) must not exceed HTTP_REQUEST_TIMEOUT_MS ` +
        `(${httpRequestTimeoutMs}).`
      : null,
];

/**
 * The PostgreSQL server itself, for what needs a session of its own (the migrations' lock, LISTEN,
 * reading its limits): DATABASE_DIRECT_URL behind a pooler, else DATABASE_URL; none when embedded.
 */
export function databaseServerUrl(config: Pick<Config, 'databaseUrl' | 'databaseDirectUrl'>): string | undefined {
  return config.databaseDirectUrl ?? config.databaseUrl;
}

/**
 * What a start should warn of, though it may run: settings that work but leave a door open. Now one:
 * TRUST_PROXY believing any peer (`true`, or a hop count, which trusts whatever address the last
 * hop has) while listening beyond loopback, so a client that reaches the port directly writes its
 * own X-Forwarded-For and picks a new address for each attempt past the per-address limits.
 */
export function configWarnings(config: Pick<Config, 'trustProxy' | 'host'>): string[] {
  const trustsAnyPeer = config.trustProxy === true || typeof config.trustProxy === 'number';
  if (!trustsAnyPeer || isLoopbackHost(config.host)) return [];
  return [
    `TRUST_PROXY=${String(config.trustProxy)} believes X-Forwarded-For from any address, and the service listens ` +
      `on ${config.host}: a client that reaches it directly chooses its own address for the sign-up and sign-in ` +
      'limits. Name the proxies instead (TRUST_PROXY=loopback, or their addresses: 10.0.0.0/8), or listen on ' +
      'loopback only (HOST=127.0.0.1).',
  ];
}

function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * A worker's share of API_KEY_FAILURES_PER_MINUTE: each counts the failures it sees, and the cluster
 * spreads connections over the workers in turn, so together they allow about the instance's limit
 * with no round trip between processes. Never 0 unless the limit is off.
 */
export function apiKeyFailuresPerProcess(config: Pick<Config, 'apiKeyFailuresPerMinute' | 'webConcurrency'>): number {
  return Math.ceil(config.apiKeyFailuresPerMinute / config.webConcurrency);
}

/** A worker's share of RATE_LIMIT_ANONYMOUS_PER_MINUTE, as apiKeyFailuresPerProcess's. */
export function rateLimitAnonymousPerProcess(
  config: Pick<Config, 'rateLimitAnonymousPerMinute' | 'webConcurrency'>,
): number {
  return Math.ceil(config.rateLimitAnonymousPerMinute / config.webConcurrency);
}
