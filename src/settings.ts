// Every setting, described once: the service reads and checks them from this table (config.ts),
// and `npm run settings:write` writes .env.example and the table of docs/operations.md from it
// (scripts/settings-files.ts), and settings-files.test.ts fails while either differs.
import { availableParallelism } from 'node:os';
import { DEFAULT_DATABASE_TIMEOUT_MS } from './infrastructure/database/driver/database-timeouts';
import { DEFAULT_PASSWORD_CHECKS_QUEUED, defaultPasswordThreads } from './infrastructure/passwords/password-pool';
import { DEFAULT_FAILED_API_KEYS } from './infrastructure/throttling/memory-failed-attempts';
import { DEFAULT_ATTRIBUTE_VALUE_LENGTH } from './infrastructure/telemetry/span-limits';
import { SERVICE_NAME } from './infrastructure/telemetry/service-name';
import { DEFAULT_STREAM_LIMITS } from './interfaces/http/event-stream/event-streams';
import { DEFAULT_ADMISSION_LIMITS } from './interfaces/http/admission/account-admission';
import { DEFAULT_HEAVY_WORK_LOOP_PERCENT } from './interfaces/http/admission/loop-room';
import { DEFAULT_ANONYMOUS_PER_MINUTE } from './interfaces/http/middleware/address-limits';
import {
  DEFAULT_KEPT_MIB_PER_HOUR,
  DEFAULT_KEYS_PER_HOUR,
  MAX_KEPT_MIB_PER_HOUR,
  MAX_KEYS_PER_HOUR,
} from './core/use-cases/idempotency/kept-answers';
import { DEFAULT_RETRY_SCHEDULE_SECONDS } from './core/domain/webhook-attempt-outcome';
import {
  countFromOne,
  milliseconds,
  oneOf,
  onOrOff,
  port,
  postgresUrl,
  proxyTrust,
  secondsList,
  secret,
  text,
  wholeNumber,
} from './config-values';
import { SettingsTable } from './settings-table';

/** A sane ceiling: far more than the cores of one host; more processes would only compete for them. */
export const MAX_WEB_CONCURRENCY = 64;
/** Connections of one process when nothing else constrains it: node-postgres' own default. */
const DEFAULT_POOL_SIZE = 10;
/** What the default pool sizes of all workers together stay within (PostgreSQL's default max_connections is 100). */
const DEFAULT_CONNECTION_BUDGET = 80;
/**
 * Connections a process holds outside its pool, to LISTEN: event changes, and key changes (which
 * the key cache and the event streams of a changed key hear, the cache on or off).
 */
export const LISTENERS_PER_PROCESS = 2;
/**
 * The connections of each process's job queue (pg-boss's own pool, src/infrastructure/job-queue/).
 * One: its workers' polls then run one after the other, so that two of them never both take a job
 * of an endpoint that has 3 under way (pg-boss counts an endpoint's jobs in each poll's statement).
 */
export const JOB_QUEUE_CONNECTIONS = 1;
/** PgBouncer's default_pool_size: its server connections per database and user. */
const DEFAULT_POOLER_CONNECTIONS = 20;
/** Requests that may wait for the instance, per weight its heavier work runs at once: some 20 turns. */
const QUEUED_PER_RUNNING_WEIGHT = 20;
/**
 * Ordinary requests at once per database connection: while one's statement runs, the next validates
 * its body or presents its answer, so a connection need not idle meanwhile
 * (docs/decisions.md#fair-share-of-the-instance).
 */
const ORDINARY_REQUESTS_PER_CONNECTION = 3;
/** INSTANCE_WORK_RUNNING's ceiling, its default's too on the largest pools. */
const MAX_INSTANCE_WORK_RUNNING = 100_000;
/** Some 10,000 keys in use at once cost a few MB per process; a key not kept costs one indexed read. */
export const DEFAULT_API_KEY_CACHE_SIZE = 10_000;
/** Defaults of the HTTP server's timeouts; docs/operations.md, "Slow clients", gives the reasons. */
const HTTP_TIMEOUT_DEFAULTS = { request: 10_000, headers: 5_000, keepAlive: 5_000 } as const;
/** What `npm start` and the container image give Node and glibc when these are unset (docs/operations.md#memory). */
export const NODE_OPTIONS_DEFAULT = '--max-old-space-size=128 --max-semi-space-size=16';
export const MALLOC_MMAP_THRESHOLD_DEFAULT = '131072';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Variables that are no more: naming one stops the start with what replaced it. */
export const RETIRED: Readonly<Record<string, string>> = {
  EVENT_STREAMS_PER_KEY: 'EVENT_STREAMS_PER_ACCOUNT: streams are counted per account, all its keys together.',
};

const LISTENING = 'Where it listens';
const DATABASE = 'The database';
const PROCESSES = 'Processes and connections';
const HTTP = 'HTTP timeouts';
const LIMITS = 'Limits per account and client address';
const INSTANCE = "The instance's work";
const STREAMS = 'Event streams';
const WEBHOOKS = 'Webhooks';
const DASHBOARD = 'The dashboard';
const OBSERVABILITY = 'Logs, metrics and traces';

const OTEL_SDK = {
  name: "OpenTelemetry's SDK",
  url: 'https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/',
};
const OTEL_EXPORTER = {
  name: "OpenTelemetry's OTLP exporter",
  url: 'https://opentelemetry.io/docs/specs/otel/protocol/exporter/',
};

/** The default pool of each process, from the processes sharing the server and whether a pooler is between. */
function defaultPoolSize(processes: number, pooled: boolean): number {
  // Straight to PostgreSQL, every process's pool, its listening connections and its job queue's
  // share the default budget; behind a pooler the pool connects to the pooler, which queues it onto
  // its own connections.
  if (pooled) return DEFAULT_POOL_SIZE;
  const share = Math.floor(DEFAULT_CONNECTION_BUDGET / processes) - LISTENERS_PER_PROCESS - JOB_QUEUE_CONNECTIONS;
  return Math.max(1, Math.min(DEFAULT_POOL_SIZE, share));
}

export const SETTINGS = SettingsTable.empty()
  .setting('port', {
    variable: 'PORT',
    topic: LISTENING,
    reader: port(3000),
    about: 'The port the API listens on; `0` takes one the system picks, printed at start.',
  })
  .setting('host', {
    variable: 'HOST',
    topic: LISTENING,
    reader: text('0.0.0.0', 'an address or a host name'),
    about: 'The address it listens on: every interface by default, `127.0.0.1` for loopback only.',
  })
  .setting('trustProxy', {
    variable: 'TRUST_PROXY',
    topic: LISTENING,
    reader: proxyTrust(),
    about:
      "Which proxies' `X-Forwarded-For` and `X-Forwarded-Proto` count (Express's `trust proxy`): none by " +
      'default, so a client cannot choose its own address. Behind a TLS-terminating proxy, dashboard cookies ' +
      'are then `Secure` and the per-address limits see client addresses. `true` or a hop count believes any ' +
      'peer, which the start warns of when the service listens beyond loopback: name the proxies ' +
      '(docs/dashboard.md#trust_proxy, docs/reverse-proxy.md).',
  })
  .setting('databaseUrl', {
    variable: 'DATABASE_URL',
    topic: DATABASE,
    reader: postgresUrl(', for the embedded database'),
    unset: 'the embedded database',
    about:
      'A PostgreSQL server, `postgresql://user:password@host:5432/db`. Unset, an embedded PostgreSQL (PGlite) ' +
      'runs in the process, its files in `DATA_DIR`: for trying the service and for development. Either way ' +
      'the service applies its migrations at start and prints where its data lives.',
  })
  .setting('dataDir', {
    variable: 'DATA_DIR',
    topic: DATABASE,
    reader: text('.data', 'a folder, from the working directory'),
    about:
      "The embedded database's folder, without `DATABASE_URL`; its data survives a restart " +
      '(docs/operations.md#the-embedded-databases-data-folder). On a full disk the database answers `503` ' +
      'and comes back by itself once there is room (docs/operations.md#the-embedded-database-on-a-full-disk).',
  })
  .setting('acceptEmbeddedDatabase', {
    variable: 'ACCEPT_EMBEDDED_DATABASE',
    topic: DATABASE,
    reader: onOrOff(false),
    about:
      'With `NODE_ENV=production` (the container) the embedded database is refused unless this is `on`: a ' +
      'power loss can roll it back or corrupt it (docs/operations.md#power-loss).',
  })
  .setting('databaseDirectUrl', {
    variable: 'DATABASE_DIRECT_URL',
    topic: DATABASE,
    reader: postgresUrl(''),
    unset: '`DATABASE_URL` is the server',
    about:
      'Behind a connection pooler (PgBouncer in transaction mode, deploy/pgbouncer), `DATABASE_URL` names the ' +
      "pooler and this the PostgreSQL server itself, for what needs a session of its own: the migrations' " +
      "lock, the LISTEN of key and event changes, reading the server's limits. Set, it turns prepared " +
      'statements off by default (docs/operations.md#behind-a-connection-pooler).',
  })
  .setting('databaseTimeoutMs', {
    variable: 'DATABASE_TIMEOUT_MS',
    topic: DATABASE,
    reader: milliseconds(DEFAULT_DATABASE_TIMEOUT_MS, 100, 600_000),
    about:
      'The longest wait for the database: for a connection (new, or free in the pool), and for a statement, ' +
      'which PostgreSQL cancels at this bound; one still unanswered a second later (a silent network) closes ' +
      'its connection. A request the database does not answer in time gets `503` with `Retry-After`, within ' +
      'this and a second rather than minutes (docs/operations.md#when-the-database-stops-answering). Behind ' +
      "PgBouncer, its `connect_query` sets the server's bound (deploy/pgbouncer).",
  })
  .setting('databasePreparedStatements', {
    variable: 'DATABASE_PREPARED_STATEMENTS',
    topic: DATABASE,
    reader: ({ databaseDirectUrl }) => onOrOff(databaseDirectUrl === undefined),
    rule: '`on`; `off` with `DATABASE_DIRECT_URL`',
    about:
      'Each connection to `DATABASE_URL` prepares a statement once and PostgreSQL reuses its plan. A pooler in ' +
      "transaction mode hands a client's statements to server connections that never prepared them, hence " +
      'off behind one; PgBouncer 1.21 or later with `max_prepared_statements` keeps them, and there it may be ' +
      "`on`. A migration that changes a returned column's type needs the running processes restarted. The " +
      'embedded database never prepares (docs/operations.md#prepared-statements).',
  })
  .setting('webConcurrency', {
    variable: 'WEB_CONCURRENCY',
    topic: PROCESSES,
    reader: countFromOne(1, MAX_WEB_CONCURRENCY, 'worker processes'),
    about:
      'Worker processes serving the one port on this host (`node:cluster`), about one per core; a worker that ' +
      'dies is replaced. `1`: a single process, no cluster primary. More than 1 needs `DATABASE_URL` ' +
      '(docs/operations.md#worker-processes).',
  })
  .setting('serviceReplicas', {
    variable: 'SERVICE_REPLICAS',
    topic: PROCESSES,
    reader: countFromOne(1, 1_000, 'instances of the service'),
    about:
      'Instances of the service (containers, hosts) sharing the database, the most that run at once (a rolling ' +
      "deploy's extra one included), each of `WEB_CONCURRENCY` processes. Only counted: each instance checks at " +
      "start that all of them fit PostgreSQL's `max_connections` (docs/operations.md#the-connection-budget).",
  })
  .setting('databasePoolSize', {
    variable: 'DATABASE_POOL_SIZE',
    topic: PROCESSES,
    reader: ({ serviceReplicas, webConcurrency, databaseDirectUrl }) =>
      countFromOne(
        defaultPoolSize(serviceReplicas * webConcurrency, databaseDirectUrl !== undefined),
        1_000,
        'connections per process',
      ),
    rule:
      `${DEFAULT_POOL_SIZE}, or floor(${DEFAULT_CONNECTION_BUDGET} / (\`SERVICE_REPLICAS\` × \`WEB_CONCURRENCY\`)) ` +
      `- ${LISTENERS_PER_PROCESS + JOB_QUEUE_CONNECTIONS} when smaller, at least 1; always ${DEFAULT_POOL_SIZE} with ` +
      '`DATABASE_DIRECT_URL`',
    about:
      "Connections each serving process may open to `DATABASE_URL`. The default keeps every process's pool, " +
      `its ${LISTENERS_PER_PROCESS} listening connections (event and key changes) and its job queue's connection ` +
      `within ${DEFAULT_CONNECTION_BUDGET} of PostgreSQL's default \`max_connections\` of 100, up to 20 processes; ` +
      'the connection budget checks the result at start. The embedded database always takes one, and its job ' +
      'queue one (docs/operations.md#worker-processes).',
  })
  .setting('databasePoolerConnections', {
    variable: 'DATABASE_POOLER_CONNECTIONS',
    topic: PROCESSES,
    reader: countFromOne(DEFAULT_POOLER_CONNECTIONS, 10_000, "the pooler's server connections"),
    rule:
      `${DEFAULT_POOLER_CONNECTIONS} (PgBouncer's \`default_pool_size\`) with \`DATABASE_DIRECT_URL\`; ` +
      'refused without',
    about:
      "Behind a pooler, the most server connections it opens to the database for the service (PgBouncer's " +
      '`max_db_connections`, or its `pool_size` plus `reserve_pool_size`). Only counted, by the connection ' +
      'budget (docs/operations.md#the-connection-budget).',
  })
  .setting('apiKeyCacheSize', {
    variable: 'API_KEY_CACHE_SIZE',
    topic: PROCESSES,
    reader: wholeNumber(DEFAULT_API_KEY_CACHE_SIZE),
    about:
      'Verified API keys each process keeps in memory, so that most requests authenticate without a database ' +
      'read; a revocation still counts at once in every process ' +
      '(docs/decisions.md#verified-api-keys-in-memory). `0` turns the cache off: every request reads its key.',
  })
  .setting('shutdownGraceMs', {
    variable: 'SHUTDOWN_GRACE_MS',
    topic: PROCESSES,
    reader: wholeNumber(10_000, 'no grace'),
    about:
      'After `SIGTERM` or `SIGINT` the service stops accepting connections and lets requests in flight finish ' +
      'for at most this many milliseconds, then cuts what is left and exits `0`. An orchestrator must wait ' +
      'longer before it kills (docs/operations.md#stopping-sigterm-or-sigint).',
  })
  .outside({
    variable: 'NODE_OPTIONS',
    topic: PROCESSES,
    readBy: { name: 'Node', url: 'https://nodejs.org/api/cli.html#node_optionsoptions' },
    default: NODE_OPTIONS_DEFAULT,
    about:
      "Node's options. `npm start` and the container image bound the V8 heap's old space at 128 MiB when it " +
      'is unset, which keeps a process under 250 MB resident under load, and size the young generation on its ' +
      "own, which V8 would derive from the old space's bound and collect too often. Setting it replaces that " +
      'default (docs/operations.md#memory).',
  })
  .outside({
    variable: 'MALLOC_MMAP_THRESHOLD_',
    topic: PROCESSES,
    readBy: { name: "glibc's malloc", url: 'https://man7.org/linux/man-pages/man3/mallopt.3.html' },
    default: MALLOC_MMAP_THRESHOLD_DEFAULT,
    about:
      'Allocations from 128 KiB up are mapped on their own and returned to the system when freed. By default ' +
      "glibc raises the threshold after the first such block is freed, and later large blocks (PGlite's " +
      "initialisation, a sign-up's scrypt) stay resident. `npm start` and the container image set this " +
      'default (docs/operations.md#memory).',
  })
  .setting('httpRequestTimeoutMs', {
    variable: 'HTTP_REQUEST_TIMEOUT_MS',
    topic: HTTP,
    reader: milliseconds(HTTP_TIMEOUT_DEFAULTS.request, 1_000, 3_600_000),
    about:
      "A request's head and body must have arrived within this, or the answer is `408` and the connection " +
      'closed. Keep it at most `SHUTDOWN_GRACE_MS`, so that a stop never cuts an upload ' +
      '(docs/operations.md#slow-clients).',
  })
  .setting('httpHeadersTimeoutMs', {
    variable: 'HTTP_HEADERS_TIMEOUT_MS',
    topic: HTTP,
    reader: ({ httpRequestTimeoutMs }) =>
      milliseconds(Math.min(HTTP_TIMEOUT_DEFAULTS.headers, httpRequestTimeoutMs), 1_000, 3_600_000),
    rule: `${HTTP_TIMEOUT_DEFAULTS.headers}, or \`HTTP_REQUEST_TIMEOUT_MS\` when that is less`,
    about: "A request's head must have arrived within this; not above `HTTP_REQUEST_TIMEOUT_MS`, which Node refuses.",
  })
  .setting('httpKeepAliveTimeoutMs', {
    variable: 'HTTP_KEEP_ALIVE_TIMEOUT_MS',
    topic: HTTP,
    reader: milliseconds(HTTP_TIMEOUT_DEFAULTS.keepAlive, 1_000, 600_000),
    about:
      "An idle keep-alive connection is closed after this: keep it above the proxy's own idle timeout for its " +
      'upstream connections (deploy/nginx: `keepalive_timeout 4s`).',
  })
  .setting('rateLimitPerSecond', {
    variable: 'RATE_LIMIT_PER_SECOND',
    topic: LIMITS,
    reader: wholeNumber(100),
    about:
      'API requests per account per second, all its API keys together; past it, `429 rate_limited` with ' +
      '`Retry-After`. Counted in the database, so that the limit holds across every process ' +
      '(docs/decisions.md#rate-limits).',
  })
  .setting('rateLimitAccountsPerMinute', {
    variable: 'RATE_LIMIT_ACCOUNTS_PER_MINUTE',
    topic: LIMITS,
    reader: wholeNumber(10),
    about:
      'Sign-ups and sign-ins (`POST /v1/accounts`, `/signup`, `/login`) per client address per minute, and five ' +
      'times that per network (an IPv4 /24, an IPv6 /48); counted in the database.',
  })
  .setting('rateLimitAnonymousPerMinute', {
    variable: 'RATE_LIMIT_ANONYMOUS_PER_MINUTE',
    topic: LIMITS,
    reader: wholeNumber(DEFAULT_ANONYMOUS_PER_MINUTE),
    about:
      'Requests that carry no API key an operation checks (health checks, pages, the OpenAPI document, API ' +
      'requests without a key) per client address per minute on this instance; past it, `429 rate_limited`. ' +
      'Counted in memory: each of `WEB_CONCURRENCY` workers counts its share.',
  })
  .setting('apiKeyFailuresPerMinute', {
    variable: 'API_KEY_FAILURES_PER_MINUTE',
    topic: LIMITS,
    reader: wholeNumber(DEFAULT_FAILED_API_KEYS.failures),
    about:
      'Unknown, revoked or expired API keys one client address may present per minute on this instance; past ' +
      'it, its requests with a key not verified lately get `429 too_many_failed_attempts` before any database ' +
      'read. Counted in memory, each worker its share (docs/decisions.md#authentication-everywhere).',
  })
  .setting('idempotencyKeptMibPerHour', {
    variable: 'IDEMPOTENCY_KEPT_MIB_PER_HOUR',
    topic: LIMITS,
    reader: countFromOne(DEFAULT_KEPT_MIB_PER_HOUR, MAX_KEPT_MIB_PER_HOUR, 'MiB of kept answers per account an hour'),
    about:
      "MiB of answers an account's `Idempotency-Key`s keep per hour, all its keys together. Past it, or past " +
      '`IDEMPOTENCY_KEYS_PER_HOUR`, a keyed request is refused before it acts (`429 ' +
      "idempotency_quota_exceeded`, `Retry-After` the hour's end), but a retry of a kept key still gets its " +
      "answer. Keys are kept 24 hours: at most 25 hours' worth (docs/decisions.md#within-the-accounts-hourly-bound).",
  })
  .setting('idempotencyKeysPerHour', {
    variable: 'IDEMPOTENCY_KEYS_PER_HOUR',
    topic: LIMITS,
    reader: countFromOne(DEFAULT_KEYS_PER_HOUR, MAX_KEYS_PER_HOUR, 'keyed requests per account an hour'),
    about:
      'Requests with an `Idempotency-Key` an account may make per hour, all its keys together ' +
      '(docs/decisions.md#idempotency-key).',
  })
  .setting('accountRequestsRunning', {
    variable: 'ACCOUNT_REQUESTS_RUNNING',
    topic: LIMITS,
    reader: countFromOne(DEFAULT_ADMISSION_LIMITS.running, 1000, 'requests of one account at once'),
    about:
      'API requests of one account that run at once on this instance, all its keys and every worker together. ' +
      'Up to this many start at once, the next at the pace of `RATE_LIMIT_PER_SECOND`, by cost ' +
      '(docs/decisions.md#paced-starts).',
  })
  .setting('accountRequestsQueued', {
    variable: 'ACCOUNT_REQUESTS_QUEUED',
    topic: LIMITS,
    reader: wholeNumber(DEFAULT_ADMISSION_LIMITS.queued, 'none waits'),
    about:
      "How many more of an account's requests wait their turn; past both, `429 too_many_requests_in_flight` " +
      '(docs/decisions.md#requests-in-flight).',
  })
  .setting('instanceWorkRunning', {
    variable: 'INSTANCE_WORK_RUNNING',
    topic: INSTANCE,
    // A few ordinary requests per connection: more would wait in the pools, unfairly.
    reader: ({ databasePoolSize, webConcurrency }) =>
      countFromOne(
        Math.min(ORDINARY_REQUESTS_PER_CONNECTION * databasePoolSize * webConcurrency, MAX_INSTANCE_WORK_RUNNING),
        MAX_INSTANCE_WORK_RUNNING,
        'weight of requests at once',
      ),
    rule: `${ORDINARY_REQUESTS_PER_CONNECTION} × \`DATABASE_POOL_SIZE\` × \`WEB_CONCURRENCY\``,
    about:
      'The weight of API requests that run at once on this instance, every account and worker together. An ' +
      'ordinary request weighs 1, a page of 500 items 5, a 100-name paradox check 9 ' +
      '(docs/decisions.md#fair-share-of-the-instance).',
  })
  .setting('instanceHeavyWorkRunning', {
    variable: 'INSTANCE_HEAVY_WORK_RUNNING',
    topic: INSTANCE,
    // As much heavier work as the instance's connections take at once: it holds them, and the loop, longer.
    reader: ({ databasePoolSize, webConcurrency, instanceWorkRunning }) =>
      countFromOne(
        Math.min(databasePoolSize * webConcurrency, instanceWorkRunning),
        instanceWorkRunning,
        'weight of requests at once',
      ),
    rule: '`DATABASE_POOL_SIZE` × `WEB_CONCURRENCY`, at most `INSTANCE_WORK_RUNNING`',
    about:
      'A heavier API request (weight 2 or more) starts only while the weight running, its own included, stays ' +
      'within this; ordinary requests fill the rest of `INSTANCE_WORK_RUNNING` ' +
      '(docs/decisions.md#fair-share-of-the-instance).',
  })
  .setting('instanceRequestsQueued', {
    variable: 'INSTANCE_REQUESTS_QUEUED',
    topic: INSTANCE,
    reader: ({ instanceHeavyWorkRunning }) =>
      wholeNumber(QUEUED_PER_RUNNING_WEIGHT * instanceHeavyWorkRunning, 'none waits'),
    rule: `${QUEUED_PER_RUNNING_WEIGHT} × \`INSTANCE_HEAVY_WORK_RUNNING\``,
    about:
      "How many more requests wait for the instance's work, served by account in turn; past both, " +
      '`503 server_busy`.',
  })
  .setting('heavyWorkLoopPercent', {
    variable: 'HEAVY_WORK_LOOP_PERCENT',
    topic: INSTANCE,
    reader: countFromOne(DEFAULT_HEAVY_WORK_LOOP_PERCENT, 100, "percent of the event loop's time"),
    about:
      "How busy each process's event loop may be, over the last 100 ms, for a heavier API request (weight 2 " +
      'or more) to start once its turn has come; past it, the request waits for the loop to be less busy, at ' +
      'most a second, so that ordinary requests keep their latency beside heavy work. 100 holds nothing ' +
      '(docs/decisions.md#room-on-the-event-loop).',
  })
  .setting('passwordCheckThreads', {
    variable: 'PASSWORD_CHECK_THREADS',
    topic: INSTANCE,
    reader: ({ webConcurrency }) =>
      countFromOne(defaultPasswordThreads(availableParallelism(), webConcurrency), 256, 'threads per process'),
    rule: "the host's cores less one, shared by its `WEB_CONCURRENCY` processes, at least 1",
    about:
      "Threads of each process's pool for password work (scrypt, the zxcvbn strength check), off the event " +
      "loop, each at a nice value 10 above the process's, so that on a busy host the API's requests go first; " +
      'the process logs `password work threads run below the API` as they start, or warns where they could ' +
      'not (docs/decisions.md#password-work).',
  })
  .setting('passwordChecksQueued', {
    variable: 'PASSWORD_CHECKS_QUEUED',
    topic: INSTANCE,
    reader: wholeNumber(DEFAULT_PASSWORD_CHECKS_QUEUED, 'none waits'),
    about:
      'Password work that may wait for a thread, in each lane, served by client address in turn; past it, ' +
      '`503 password_checks_busy` with `Retry-After`.',
  })
  .setting('streamsPerProcess', {
    variable: 'EVENT_STREAMS_PER_PROCESS',
    topic: STREAMS,
    reader: countFromOne(DEFAULT_STREAM_LIMITS.perProcess, 100_000, 'streams'),
    about:
      'Event streams (`GET /v1/monitor-events` with `Accept: text/event-stream`) one process holds at once; ' +
      'beyond, `503 stream_capacity_reached`. Each process keeps one connection to LISTEN for event changes ' +
      '(docs/decisions.md#event-streams).',
  })
  .setting('streamsPerAccount', {
    variable: 'EVENT_STREAMS_PER_ACCOUNT',
    topic: STREAMS,
    // One account at its limit leaves nine tenths of a full process to the others.
    reader: ({ streamsPerProcess }) => {
      const share = Math.max(1, Math.floor(streamsPerProcess / 10));
      return countFromOne(Math.min(DEFAULT_STREAM_LIMITS.perAccount, share), share, 'streams, a tenth of a process');
    },
    rule: `${DEFAULT_STREAM_LIMITS.perAccount}, or a tenth of \`EVENT_STREAMS_PER_PROCESS\` when that is less`,
    about:
      'Streams one account holds, all its API keys together, over every process sharing the database: at most ' +
      'a tenth of `EVENT_STREAMS_PER_PROCESS`; beyond, `429 too_many_streams`.',
  })
  .setting('streamHeartbeatMs', {
    variable: 'EVENT_STREAM_HEARTBEAT_MS',
    topic: STREAMS,
    reader: milliseconds(DEFAULT_STREAM_LIMITS.heartbeatMs, 1_000, 300_000),
    about:
      "Between the comment lines that keep an idle stream open through proxies: keep it well under the proxy's " +
      "read timeout (nginx's 60 s by default).",
  })
  .setting('webhookRetrySchedule', {
    variable: 'WEBHOOK_RETRY_SCHEDULE',
    topic: WEBHOOKS,
    reader: secondsList(DEFAULT_RETRY_SCHEDULE_SECONDS, 50, 7 * 24 * 60 * 60),
    about:
      'The seconds to wait before each retry of a webhook message whose attempt failed, each with up to a tenth ' +
      'added at random; the first attempt is made at once, so `1,1,1,1` is five attempts a second apart. The ' +
      "default is Standard Webhooks' schedule, 5 s to 24 h over some 3 days. A `429` or `503` with " +
      '`Retry-After` waits at least that, up to the longest wait of the schedule (docs/decisions.md#webhook-attempts).',
  })
  .setting('webhookAllowPrivateUrls', {
    variable: 'WEBHOOK_ALLOW_PRIVATE_URLS',
    topic: WEBHOOKS,
    reader: onOrOff(false),
    about:
      'Lets webhook endpoints use `http` and point at loopback, private, link-local and other non-public ' +
      'addresses: for development and tests, whose receivers listen on this machine. Off, an endpoint is ' +
      '`https` on public addresses only, checked when it is registered and at each delivery ' +
      '(`400 webhook_url_not_allowed`).',
  })
  .setting('csrfSecret', {
    variable: 'CSRF_SECRET',
    topic: DASHBOARD,
    reader: secret(32, 'to keep one in the database'),
    unset: 'one kept in the database',
    about:
      "Signs the dashboard's form tokens. Unset, the service keeps one in the database, shared by every process " +
      '(docs/dashboard.md#cross-site-request-forgery).',
  })
  .setting('logLevel', {
    variable: 'LOG_LEVEL',
    topic: OBSERVABILITY,
    reader: oneOf(LOG_LEVELS, 'info'),
    about: 'The JSON log on standard output: at `info`, one line per request (docs/operations.md#the-request-log).',
  })
  .setting('metricsPort', {
    variable: 'METRICS_PORT',
    topic: OBSERVABILITY,
    reader: port(undefined),
    unset: 'no metrics',
    about:
      'Prometheus metrics at `GET /metrics` on a listener of their own, never on `PORT`. With `WEB_CONCURRENCY` ' +
      '> 1 the primary listens, and one scrape covers every worker (docs/operations.md#metrics).',
  })
  .setting('metricsHost', {
    variable: 'METRICS_HOST',
    topic: OBSERVABILITY,
    reader: text('127.0.0.1', 'an address or a host name'),
    about:
      "The metrics listener's address: loopback, never the public one by accident. In a container, `0.0.0.0`, " +
      "with the port published only to Prometheus's network.",
  })
  .outside({
    variable: 'OTEL_EXPORTER_OTLP_ENDPOINT',
    topic: OBSERVABILITY,
    readBy: OTEL_EXPORTER,
    default: '',
    unset: 'no traces',
    about:
      "A collector's OTLP endpoint. Tracing is off unless this, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or " +
      "`OTEL_TRACES_EXPORTER` is set: OpenTelemetry's own default, a collector on localhost, is not taken. " +
      '`OTEL_SDK_DISABLED=true` keeps it off. The headers, timeout and compression of the exporter are ' +
      "OpenTelemetry's variables (docs/operations.md#traces).",
  })
  .outside({
    variable: 'OTEL_TRACES_EXPORTER',
    topic: OBSERVABILITY,
    readBy: OTEL_SDK,
    default: '',
    unset: '`otlp`, when an endpoint is set',
    about:
      '`otlp` or `console`; `none` keeps tracing off. `zipkin` is not offered: its exporter neither bounds nor ' +
      'times out its exports.',
  })
  .outside({
    variable: 'OTEL_EXPORTER_OTLP_PROTOCOL',
    topic: OBSERVABILITY,
    readBy: OTEL_EXPORTER,
    default: 'http/protobuf',
    about:
      '`http/protobuf` or `http/json` (`grpc` also works, untested here); ' +
      '`OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` first.',
  })
  .outside({
    variable: 'OTEL_SERVICE_NAME',
    topic: OBSERVABILITY,
    readBy: OTEL_SDK,
    default: '',
    unset: `\`${SERVICE_NAME}\`, unless \`OTEL_RESOURCE_ATTRIBUTES\` names one`,
    about: "The service's name in its traces.",
  })
  .outside({
    variable: 'OTEL_TRACES_SAMPLER',
    topic: OBSERVABILITY,
    readBy: OTEL_SDK,
    default: '',
    unset: "every request, by the service's own draw",
    about:
      "Which requests are traced, drawn by the service whatever a client's `traceparent` says: `traceidratio` " +
      "keeps `OTEL_TRACES_SAMPLER_ARG` of them (for a production load `0.1`, the compose file's default); " +
      '`always_on`, `always_off`. The `parentbased_*` samplers follow the caller: only behind a proxy that sets ' +
      "every request's `traceparent` itself (docs/operations.md#sampling).",
  })
  .outside({
    variable: 'OTEL_TRACES_SAMPLER_ARG',
    topic: OBSERVABILITY,
    readBy: OTEL_SDK,
    default: '',
    unset: '1',
    about: 'The ratio of `traceidratio` and `parentbased_traceidratio`, from 0 to 1; out of range, a warning and 1.',
  })
  .outside({
    variable: 'OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT',
    topic: OBSERVABILITY,
    readBy: OTEL_SDK,
    default: String(DEFAULT_ATTRIBUTE_VALUE_LENGTH),
    about:
      "The longest attribute value a span keeps, in characters (OpenTelemetry's own default: no limit); " +
      '`OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT` first (docs/operations.md#what-tracing-may-hold).',
  })
  .outside({
    variable: 'OTEL_BSP_MAX_QUEUE_SIZE',
    topic: OBSERVABILITY,
    readBy: OTEL_SDK,
    default: '2048',
    about:
      'Spans waiting for their export: a span that ends while the queue is full is dropped, and counted. The ' +
      "service reads the other `OTEL_BSP_*` variables as OpenTelemetry's SDK does.",
  });

/** The settings as read: what `readConfig` shapes into a `Config`. */
export type Settings = ReturnType<typeof SETTINGS.read>;
