import { availableParallelism } from 'node:os';
import { DEFAULT_DATABASE_TIMEOUT_MS } from './infrastructure/database/database-timeouts';
import { DEFAULT_PASSWORD_CHECKS_QUEUED, defaultPasswordThreads } from './infrastructure/passwords/password-pool';
import { DEFAULT_FAILED_API_KEYS } from './infrastructure/throttling/memory-failed-attempts';
import { DEFAULT_STREAM_LIMITS, type EventStreamLimits } from './interfaces/http/event-stream/event-streams';
import {
  countFromOne,
  type Env,
  milliseconds,
  oneOf,
  onOrOff,
  port,
  postgresUrl,
  type Reader,
  retired,
  secret,
  text,
  wholeNumber,
} from './config-values';
import { type AdmissionLimits, DEFAULT_ADMISSION_LIMITS } from './interfaces/http/admission/account-admission';
import { DEFAULT_ANONYMOUS_PER_MINUTE } from './interfaces/http/middleware/address-limits';
import type { FairShareLimits } from './interfaces/http/admission/fair-share';
import {
  DEFAULT_KEPT_MIB_PER_HOUR,
  DEFAULT_KEYS_PER_HOUR,
  MAX_KEPT_MIB_PER_HOUR,
  MAX_KEYS_PER_HOUR,
} from './core/use-cases/idempotency/kept-answers';

/** Settings read from the environment once at start, each checked with a message that says what is wrong. */
export interface Config {
  readonly port: number;
  readonly host: string;
  /**
   * METRICS_PORT: where `GET /metrics` answers in Prometheus's format, on a listener of its own
   * (unset: none). With WEB_CONCURRENCY > 1 the primary listens and gathers every worker's.
   */
  readonly metricsPort: number | undefined;
  /** METRICS_HOST: the metrics listener's address (default 127.0.0.1: never the public one by accident). */
  readonly metricsHost: string;
  /** A PostgreSQL server; when absent the service runs an embedded PostgreSQL in `dataDir`. */
  readonly databaseUrl: string | undefined;
  /**
   * DATABASE_DIRECT_URL: the PostgreSQL server itself when DATABASE_URL names a connection pooler
   * (PgBouncer in transaction mode), for what needs a session of its own: the migrations' advisory
   * lock and the LISTEN of key and event changes. Unset: DATABASE_URL is the server, used for all.
   */
  readonly databaseDirectUrl: string | undefined;
  /**
   * SERVICE_REPLICAS: instances of the service (containers, hosts) sharing the database, each
   * running WEB_CONCURRENCY processes (default 1). Only counted: the connection budget.
   */
  readonly serviceReplicas: number;
  /**
   * DATABASE_POOLER_CONNECTIONS: the most server connections the pooler opens to the database for
   * the service (PgBouncer's max_db_connections, or its pool_size plus reserve_pool_size); default 20,
   * PgBouncer's default_pool_size. Only with DATABASE_DIRECT_URL; only counted: the connection budget.
   */
  readonly databasePoolerConnections: number | undefined;
  readonly dataDir: string;
  /**
   * TRUST_PROXY, passed to Express's 'trust proxy': off by default, so X-Forwarded-* headers are
   * ignored unless the service really sits behind a proxy that sets them. `true`, a number of
   * hops, or addresses/subnets (`loopback`, `10.0.0.0/8`, ...) of the trusted proxies.
   */
  readonly trustProxy: boolean | number | string;
  /** CSRF_SECRET signs the dashboard's form tokens; unset, the service keeps one in the database. */
  readonly csrfSecret: string | undefined;
  /** LOG_LEVEL of the JSON request log: one line per request at `info`. */
  readonly logLevel: LogLevel;
  /** RATE_LIMIT_PER_SECOND: requests per account per second, all its keys together (default 100; 0: off). */
  readonly rateLimitPerSecond: number;
  /**
   * RATE_LIMIT_ACCOUNTS_PER_MINUTE: account requests (sign-up, sign-in) per client address per minute
   * (default 10; 0 = off).
   */
  readonly rateLimitAccountsPerMinute: number;
  /**
   * RATE_LIMIT_ANONYMOUS_PER_MINUTE: requests that carry no API key an operation checks (health
   * checks, pages, the OpenAPI document, API requests without a key) per client address a minute on
   * this instance (default 600; 0 = off); past it, 429 rate_limited. Each of WEB_CONCURRENCY workers
   * counts its share in its memory (rateLimitAnonymousPerProcess).
   */
  readonly rateLimitAnonymousPerMinute: number;
  /**
   * API_KEY_FAILURES_PER_MINUTE: requests with an unknown, revoked or expired API key per client
   * address a minute on this instance (default 30; 0 = off); past it the address's requests with a
   * key not verified lately get 429 too_many_failed_attempts, before any database read. Each of
   * WEB_CONCURRENCY workers counts its share (apiKeyFailuresPerProcess).
   */
  readonly apiKeyFailuresPerMinute: number;
  /**
   * IDEMPOTENCY_KEPT_MIB_PER_HOUR: MiB of answers an account's Idempotency-Keys keep per hour, all
   * its keys together (default 64, at most 256); past it, keyed requests are refused before they act.
   */
  readonly idempotencyKeptMibPerHour: number;
  /**
   * IDEMPOTENCY_KEYS_PER_HOUR: requests with an Idempotency-Key an account may make per hour, all
   * its keys together (default 72,000, at most 10,000,000); past it, or past its kept MiB, a keyed
   * request is refused before it acts (429 idempotency_quota_exceeded), but for a retry of a kept key.
   */
  readonly idempotencyKeysPerHour: number;
  /**
   * ACCOUNT_REQUESTS_RUNNING and ACCOUNT_REQUESTS_QUEUED: API requests of one account that run at
   * once on this instance, all its keys and every worker together (default 8), and how many more
   * wait their turn (default 100); past both, 429 too_many_requests_in_flight. Up to
   * ACCOUNT_REQUESTS_RUNNING start at once, the next at the pace of RATE_LIMIT_PER_SECOND (by cost).
   */
  readonly accountRequests: AdmissionLimits;
  /**
   * INSTANCE_WORK_RUNNING and INSTANCE_REQUESTS_QUEUED: the weight of API requests that run at once
   * on this instance, every account and worker together (default: DATABASE_POOL_SIZE times
   * WEB_CONCURRENCY, an ordinary request weighing 1), and how many more wait for it, served by
   * account in turn (default 20 times as many); past both, 503 server_busy (docs/decisions.md,
   * "Fair share of the instance").
   */
  readonly instanceWork: FairShareLimits;
  /**
   * PASSWORD_CHECK_THREADS: threads of this process's pool for password work, scrypt and zxcvbn
   * (default: the host's cores less one, shared by its WEB_CONCURRENCY processes, at least one).
   * PASSWORD_CHECKS_QUEUED: work that may wait for one, in each lane (default 32; 0: none waits);
   * past it, 503 password_checks_busy.
   */
  readonly passwordChecks: { readonly threads: number; readonly queued: number };
  /**
   * SHUTDOWN_GRACE_MS: how long in-flight requests may run after SIGTERM before their connections are
   * closed (default 10 s).
   */
  readonly shutdownGraceMs: number;
  /**
   * WEB_CONCURRENCY: worker processes serving one port on this host (node:cluster). 1, the default,
   * is one process and no cluster primary at all. More than 1 needs DATABASE_URL.
   */
  readonly webConcurrency: number;
  /**
   * DATABASE_POOL_SIZE: connections each serving process may open to DATABASE_URL. Default 10, or
   * fewer with 7 processes or more over all replicas, so that their pools and their listening
   * connections (key and event changes) together stay within 80 (PostgreSQL's default
   * max_connections is 100) up to 26 processes; behind a pooler (DATABASE_DIRECT_URL) always 10.
   * The embedded database always takes one. The connection budget checks the result at start.
   */
  readonly databasePoolSize: number;
  /** API_KEY_CACHE_SIZE: verified API keys each process keeps in memory (default 10,000; 0 turns the cache off). */
  readonly apiKeyCacheSize: number;
  /**
   * DATABASE_PREPARED_STATEMENTS: each connection to DATABASE_URL prepares a statement once. On by
   * default, off by default behind a pooler (DATABASE_DIRECT_URL set), which hands one client's
   * statements to other server connections (PgBouncer in transaction mode, unless 1.21 or later
   * with max_prepared_statements, where it may be turned on).
   */
  readonly databasePreparedStatements: boolean;
  /**
   * DATABASE_TIMEOUT_MS: the longest wait for a database connection or statement (default 5 s);
   * a request the database does not answer in time gets 503 (docs/operations.md).
   */
  readonly databaseTimeoutMs: number;
  /** HTTP_REQUEST_TIMEOUT_MS: a request's head and body must have arrived within this (default 10 s), or 408. */
  readonly httpRequestTimeoutMs: number;
  /** HTTP_HEADERS_TIMEOUT_MS: its head within this (default 5 s), at most the request timeout. */
  readonly httpHeadersTimeoutMs: number;
  /**
   * HTTP_KEEP_ALIVE_TIMEOUT_MS: an idle keep-alive connection is closed after this (default 5 s, above
   * nginx's 4 s).
   */
  readonly httpKeepAliveTimeoutMs: number;
  /**
   * Event streams (GET /v1/monitor-events as text/event-stream): EVENT_STREAMS_PER_PROCESS held by
   * one process at once (default 2,000; beyond, 503), EVENT_STREAMS_PER_ACCOUNT by one account (all
   * its keys) in every process together (default 20, at most a tenth of a process's; beyond, 429),
   * and EVENT_STREAM_HEARTBEAT_MS between the comment lines that keep an idle stream open through
   * proxies (default 15 s).
   */
  readonly eventStreams: EventStreamLimits;
}

/** Defaults of the HTTP server's timeouts; docs/operations.md, "Slow clients", gives the reasons. */
const HTTP_TIMEOUT_DEFAULTS = { request: 10_000, headers: 5_000, keepAlive: 5_000 } as const;

/** A sane ceiling: far more than the cores of one host; more processes would only compete for them. */
export const MAX_WEB_CONCURRENCY = 64;
/** Connections of one process when nothing else constrains it: node-postgres' own default. */
const DEFAULT_POOL_SIZE = 10;
/** What the default pool sizes of all workers together stay within (PostgreSQL's default max_connections is 100). */
const DEFAULT_CONNECTION_BUDGET = 80;
/** PgBouncer's default_pool_size: its server connections per database and user. */
const DEFAULT_POOLER_CONNECTIONS = 20;
/** Requests that may wait for the instance, per weight it runs at once: a wait of some 20 turns. */
const QUEUED_PER_RUNNING_WEIGHT = 20;
/** Some 10,000 keys in use at once cost a few MB per process; a key not kept costs one indexed read. */
export const DEFAULT_API_KEY_CACHE_SIZE = 10_000;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export class ConfigError extends Error {}

const STREAMS_PER_ACCOUNT = 'EVENT_STREAMS_PER_ACCOUNT: streams are counted per account, all its keys together.';

/**
 * The settings whose fallback is fixed, each read by its variable and its reader (config-values.ts),
 * in the order their problems are listed. What each means is on `Config`.
 */
const SETTINGS = {
  port: ['PORT', port(3000)],
  host: ['HOST', text('0.0.0.0')],
  metricsPort: ['METRICS_PORT', port(undefined)],
  metricsHost: ['METRICS_HOST', text('127.0.0.1')],
  databaseUrl: ['DATABASE_URL', postgresUrl(', for the embedded database')],
  acceptEmbeddedDatabase: ['ACCEPT_EMBEDDED_DATABASE', onOrOff(false)],
  trustProxy: ['TRUST_PROXY', trustProxy],
  csrfSecret: ['CSRF_SECRET', secret(32, 'to keep one in the database')],
  logLevel: ['LOG_LEVEL', oneOf(LOG_LEVELS, 'info')],
  rateLimitPerSecond: ['RATE_LIMIT_PER_SECOND', wholeNumber(100)],
  rateLimitAccountsPerMinute: ['RATE_LIMIT_ACCOUNTS_PER_MINUTE', wholeNumber(10)],
  rateLimitAnonymousPerMinute: ['RATE_LIMIT_ANONYMOUS_PER_MINUTE', wholeNumber(DEFAULT_ANONYMOUS_PER_MINUTE)],
  apiKeyFailuresPerMinute: ['API_KEY_FAILURES_PER_MINUTE', wholeNumber(DEFAULT_FAILED_API_KEYS.failures)],
  idempotencyKeptMibPerHour: [
    'IDEMPOTENCY_KEPT_MIB_PER_HOUR',
    countFromOne(DEFAULT_KEPT_MIB_PER_HOUR, MAX_KEPT_MIB_PER_HOUR, 'MiB of kept answers per account an hour'),
  ],
  idempotencyKeysPerHour: [
    'IDEMPOTENCY_KEYS_PER_HOUR',
    countFromOne(DEFAULT_KEYS_PER_HOUR, MAX_KEYS_PER_HOUR, 'keyed requests per account an hour'),
  ],
  accountRequestsRunning: [
    'ACCOUNT_REQUESTS_RUNNING',
    countFromOne(DEFAULT_ADMISSION_LIMITS.running, 1000, 'requests of one account at once'),
  ],
  accountRequestsQueued: ['ACCOUNT_REQUESTS_QUEUED', wholeNumber(DEFAULT_ADMISSION_LIMITS.queued, 'none waits')],
  passwordChecksQueued: ['PASSWORD_CHECKS_QUEUED', wholeNumber(DEFAULT_PASSWORD_CHECKS_QUEUED, 'none waits')],
  shutdownGraceMs: ['SHUTDOWN_GRACE_MS', wholeNumber(10_000, 'no grace')],
  webConcurrency: ['WEB_CONCURRENCY', countFromOne(1, MAX_WEB_CONCURRENCY, 'worker processes')],
  apiKeyCacheSize: ['API_KEY_CACHE_SIZE', wholeNumber(DEFAULT_API_KEY_CACHE_SIZE)],
  databaseDirectUrl: ['DATABASE_DIRECT_URL', postgresUrl('')],
  serviceReplicas: ['SERVICE_REPLICAS', countFromOne(1, 1_000, 'instances of the service')],
  databaseTimeoutMs: ['DATABASE_TIMEOUT_MS', milliseconds(DEFAULT_DATABASE_TIMEOUT_MS, 100, 600_000)],
  httpRequestTimeoutMs: ['HTTP_REQUEST_TIMEOUT_MS', milliseconds(HTTP_TIMEOUT_DEFAULTS.request, 1_000, 3_600_000)],
  httpKeepAliveTimeoutMs: ['HTTP_KEEP_ALIVE_TIMEOUT_MS', milliseconds(HTTP_TIMEOUT_DEFAULTS.keepAlive, 1_000, 600_000)],
  streamsPerProcess: ['EVENT_STREAMS_PER_PROCESS', countFromOne(DEFAULT_STREAM_LIMITS.perProcess, 100_000, 'streams')],
  streamHeartbeatMs: ['EVENT_STREAM_HEARTBEAT_MS', milliseconds(DEFAULT_STREAM_LIMITS.heartbeatMs, 1_000, 300_000)],
  streamsPerKey: ['EVENT_STREAMS_PER_KEY', retired(STREAMS_PER_ACCOUNT)],
  dataDir: ['DATA_DIR', text('.data')],
} satisfies Record<string, readonly [string, Reader<unknown>]>;

type Settings = { readonly [K in keyof typeof SETTINGS]: ReturnType<(typeof SETTINGS)[K][1]> };

/** Reads the table: each setting by its reader, every problem collected. */
function readSettings(env: Env, problems: string[]): Settings {
  const entries = Object.entries(SETTINGS).map(([key, [name, read]]) => [key, read(env, name, problems)]);
  return Object.fromEntries(entries) as Settings;
}

export function readConfig(env: Env): Config {
  const problems: string[] = [];
  const settings = readSettings(env, problems);
  const derived = readDerived(env, settings, problems);
  // A rule across settings means something only once each of them reads right: a refused value
  // stands in as its fallback, which a rule would misread (an unset DATABASE_URL).
  if (problems.length === 0) problems.push(...RULES.flatMap((rule) => rule({ ...settings, ...derived, env }) ?? []));
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n- ${problems.join('\n- ')}`);
  const { acceptEmbeddedDatabase, accountRequestsRunning, accountRequestsQueued, streamsPerKey, ...plain } = settings;
  const {
    streamsPerProcess,
    streamHeartbeatMs,
    streamsPerAccount,
    instanceWorkRunning,
    instanceRequestsQueued,
    ...rest
  } = { ...plain, ...derived };
  const { passwordCheckThreads, passwordChecksQueued, ...others } = rest;
  return {
    ...others,
    passwordChecks: { threads: passwordCheckThreads, queued: passwordChecksQueued },
    // An account's requests start spread over the second at its rate limit (docs/decisions.md).
    accountRequests: {
      running: accountRequestsRunning,
      queued: accountRequestsQueued,
      startsPerSecond: rest.rateLimitPerSecond,
    },
    instanceWork: { running: instanceWorkRunning, queued: instanceRequestsQueued },
    eventStreams: {
      perProcess: streamsPerProcess,
      perAccount: streamsPerAccount,
      heartbeatMs: streamHeartbeatMs,
      retryMs: DEFAULT_STREAM_LIMITS.retryMs,
    },
  };
}

/** The settings whose fallback or bounds follow from the table's. */
function readDerived(env: Env, settings: Settings, problems: string[]) {
  const pooled = settings.databaseDirectUrl !== undefined;
  // Straight to PostgreSQL, every process's pool and its connections outside the pool (LISTEN for
  // event changes and for key changes) share the default budget; behind a pooler the pool connects
  // to the pooler, which queues it onto its own server connections.
  const processes = settings.serviceReplicas * settings.webConcurrency;
  const perProcess = Math.floor(DEFAULT_CONNECTION_BUDGET / processes) - LISTENERS_PER_PROCESS;
  const defaultPoolSize = pooled ? DEFAULT_POOL_SIZE : Math.max(1, Math.min(DEFAULT_POOL_SIZE, perProcess));
  // One account at its limit leaves nine tenths of a full process to the others.
  const accountShare = Math.max(1, Math.floor(settings.streamsPerProcess / 10));
  const read = <T>(name: string, reader: Reader<T>): T => reader(env, name, problems);
  const databasePoolSize = read('DATABASE_POOL_SIZE', countFromOne(defaultPoolSize, 1_000, 'connections per process'));
  // As much work at once as the instance's connections can take; more would wait in the pools, unfairly.
  const instanceWorkRunning = read(
    'INSTANCE_WORK_RUNNING',
    countFromOne(databasePoolSize * settings.webConcurrency, 100_000, 'weight of requests at once'),
  );
  return {
    databasePoolerConnections: pooled
      ? read(
          'DATABASE_POOLER_CONNECTIONS',
          countFromOne(DEFAULT_POOLER_CONNECTIONS, 10_000, "the pooler's server connections"),
        )
      : undefined,
    databasePoolSize,
    instanceWorkRunning,
    instanceRequestsQueued: read(
      'INSTANCE_REQUESTS_QUEUED',
      wholeNumber(QUEUED_PER_RUNNING_WEIGHT * instanceWorkRunning, 'none waits'),
    ),
    passwordCheckThreads: read(
      'PASSWORD_CHECK_THREADS',
      countFromOne(defaultPasswordThreads(availableParallelism(), settings.webConcurrency), 256, 'threads per process'),
    ),
    // A pooler in transaction mode hands a client's statements to any of its server connections,
    // where a statement prepared on another is unknown (PgBouncer before 1.21, or without
    // max_prepared_statements).
    databasePreparedStatements: read('DATABASE_PREPARED_STATEMENTS', onOrOff(!pooled)),
    httpHeadersTimeoutMs: read(
      'HTTP_HEADERS_TIMEOUT_MS',
      milliseconds(Math.min(HTTP_TIMEOUT_DEFAULTS.headers, settings.httpRequestTimeoutMs), 1_000, 3_600_000),
    ),
    streamsPerAccount: read(
      'EVENT_STREAMS_PER_ACCOUNT',
      countFromOne(
        Math.min(DEFAULT_STREAM_LIMITS.perAccount, accountShare),
        accountShare,
        'streams (a tenth of EVENT_STREAMS_PER_PROCESS)',
      ),
    ),
  };
}

type Rule = (read: Settings & ReturnType<typeof readDerived> & { readonly env: Env }) => string | null;

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
 * Connections a process holds outside its pool, to LISTEN: event changes, and key changes (which
 * the key cache and the event streams of a changed key hear, the cache on or off).
 */
export const LISTENERS_PER_PROCESS = 2;

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

/** TRUST_PROXY as Express takes it: off, on, a number of hops, or the proxies' addresses. */
function trustProxy(env: Env, name: string): boolean | number | string {
  const value = env[name]?.trim().toLowerCase() ?? '';
  if (value === '' || value === 'false' || value === '0') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
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
