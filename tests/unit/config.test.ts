import { availableParallelism } from 'node:os';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import {
  apiKeyFailuresPerProcess,
  ConfigError,
  configWarnings,
  rateLimitAnonymousPerProcess,
  readConfig,
} from '../../src/config';
import { defaultPasswordThreads } from '../../src/infrastructure/passwords/password-pool';

describe('readConfig', () => {
  it('runs with no settings at all: port 3000, embedded database in .data, no proxy trusted', () => {
    expect(readConfig({})).toEqual({
      port: 3000,
      host: '0.0.0.0',
      metricsPort: undefined,
      metricsHost: '127.0.0.1',
      databaseUrl: undefined,
      databaseDirectUrl: undefined,
      serviceReplicas: 1,
      databasePoolerConnections: undefined,
      dataDir: '.data',
      trustProxy: false,
      csrfSecret: undefined,
      logLevel: 'info',
      rateLimitPerSecond: 100,
      rateLimitAccountsPerMinute: 10,
      rateLimitAnonymousPerMinute: 600,
      apiKeyFailuresPerMinute: 30,
      idempotencyKeptMibPerHour: 64,
      idempotencyKeysPerHour: 72_000,
      accountRequests: { running: 8, queued: 100, startsPerSecond: 100 },
      instanceWork: { running: 30, heavyRunning: 10, queued: 200 },
      heavyWorkLoopPercent: 60,
      passwordChecks: { threads: defaultPasswordThreads(availableParallelism(), 1), queued: 32 },
      shutdownGraceMs: 10_000,
      webConcurrency: 1,
      databasePoolSize: 10,
      apiKeyCacheSize: 10_000,
      databasePreparedStatements: true,
      databaseTimeoutMs: 5_000,
      httpRequestTimeoutMs: 10_000,
      httpHeadersTimeoutMs: 5_000,
      httpKeepAliveTimeoutMs: 5_000,
      eventStreams: { perProcess: 2_000, perAccount: 20, heartbeatMs: 15_000, retryMs: 2_000 },
      webhookRetrySchedule: [5, 300, 1_800, 7_200, 18_000, 36_000, 50_400, 72_000, 86_400],
      webhookAllowPrivateUrls: false,
    });
  });

  it('takes an empty variable as unset, as a compose file that names it without a value leaves it', () => {
    const empty = { PORT: '', METRICS_PORT: ' ', LOG_LEVEL: '', DATABASE_URL: '', WEB_CONCURRENCY: '' };
    expect(readConfig(empty)).toEqual(readConfig({}));
  });

  it('checks the rules across settings only once each setting reads right', () => {
    const message =
      'Invalid configuration:\n- DATABASE_URL must be a postgresql:// connection string (or unset, for the ' +
      'embedded database).';
    expect(() => readConfig({ DATABASE_URL: 'mysql://x', WEB_CONCURRENCY: '2', NODE_ENV: 'production' })).toThrow(
      new ConfigError(message),
    );
  });

  it('reads every setting', () => {
    const config = readConfig({
      PORT: '8080',
      HOST: '127.0.0.1',
      METRICS_PORT: '9464',
      METRICS_HOST: '10.0.0.5',
      DATABASE_URL: 'postgresql://u@pooler:6432/x',
      DATABASE_DIRECT_URL: 'postgresql://u@db:5432/x',
      SERVICE_REPLICAS: '3',
      DATABASE_POOLER_CONNECTIONS: '40',
      DATA_DIR: '/var/lib/tns',
      TRUST_PROXY: '1',
      CSRF_SECRET: 'x'.repeat(32),
      LOG_LEVEL: 'WARN',
      RATE_LIMIT_PER_SECOND: '0',
      RATE_LIMIT_ACCOUNTS_PER_MINUTE: '5',
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '0',
      API_KEY_FAILURES_PER_MINUTE: '0',
      IDEMPOTENCY_KEPT_MIB_PER_HOUR: '8',
      IDEMPOTENCY_KEYS_PER_HOUR: '500',
      ACCOUNT_REQUESTS_RUNNING: '4',
      ACCOUNT_REQUESTS_QUEUED: '0',
      INSTANCE_WORK_RUNNING: '30',
      INSTANCE_HEAVY_WORK_RUNNING: '12',
      INSTANCE_REQUESTS_QUEUED: '0',
      HEAVY_WORK_LOOP_PERCENT: '100',
      PASSWORD_CHECK_THREADS: '3',
      PASSWORD_CHECKS_QUEUED: '0',
      SHUTDOWN_GRACE_MS: '2500',
      WEB_CONCURRENCY: '4',
      DATABASE_POOL_SIZE: '6',
      API_KEY_CACHE_SIZE: '0',
      DATABASE_PREPARED_STATEMENTS: 'off',
      DATABASE_TIMEOUT_MS: '2000',
      HTTP_REQUEST_TIMEOUT_MS: '30000',
      HTTP_HEADERS_TIMEOUT_MS: '20000',
      HTTP_KEEP_ALIVE_TIMEOUT_MS: '65000',
      EVENT_STREAMS_PER_PROCESS: '5000',
      EVENT_STREAMS_PER_ACCOUNT: '3',
      EVENT_STREAM_HEARTBEAT_MS: '30000',
      WEBHOOK_RETRY_SCHEDULE: '1, 1,1,1',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'on',
    });
    expect(config).toEqual({
      port: 8080,
      host: '127.0.0.1',
      metricsPort: 9464,
      metricsHost: '10.0.0.5',
      databaseUrl: 'postgresql://u@pooler:6432/x',
      databaseDirectUrl: 'postgresql://u@db:5432/x',
      serviceReplicas: 3,
      databasePoolerConnections: 40,
      dataDir: '/var/lib/tns',
      trustProxy: 1,
      csrfSecret: 'x'.repeat(32),
      logLevel: 'warn',
      rateLimitPerSecond: 0,
      rateLimitAccountsPerMinute: 5,
      rateLimitAnonymousPerMinute: 0,
      apiKeyFailuresPerMinute: 0,
      idempotencyKeptMibPerHour: 8,
      idempotencyKeysPerHour: 500,
      accountRequests: { running: 4, queued: 0, startsPerSecond: 0 },
      instanceWork: { running: 30, heavyRunning: 12, queued: 0 },
      heavyWorkLoopPercent: 100,
      passwordChecks: { threads: 3, queued: 0 },
      shutdownGraceMs: 2500,
      webConcurrency: 4,
      databasePoolSize: 6,
      apiKeyCacheSize: 0,
      databasePreparedStatements: false,
      databaseTimeoutMs: 2_000,
      httpRequestTimeoutMs: 30_000,
      httpHeadersTimeoutMs: 20_000,
      httpKeepAliveTimeoutMs: 65_000,
      eventStreams: { perProcess: 5_000, perAccount: 3, heartbeatMs: 30_000, retryMs: 2_000 },
      webhookRetrySchedule: [1, 1, 1, 1],
      webhookAllowPrivateUrls: true,
    });
  });

  it("sizes the instance's work at once by its connections, and what may wait by its heavier work", () => {
    const instanceWork = (env: Record<string, string>) => readConfig(env).instanceWork;
    expect(
      instanceWork({ DATABASE_URL: 'postgresql://u@db/x', WEB_CONCURRENCY: '4', DATABASE_POOL_SIZE: '6' }),
    ).toEqual({
      running: 72,
      heavyRunning: 24,
      queued: 480,
    });
    // The heavier work's bound follows a smaller bound of all.
    expect(instanceWork({ INSTANCE_WORK_RUNNING: '3' })).toEqual({ running: 3, heavyRunning: 3, queued: 60 });
    expect(instanceWork({ INSTANCE_HEAVY_WORK_RUNNING: '2' })).toEqual({ running: 30, heavyRunning: 2, queued: 40 });
    expect(() => readConfig({ INSTANCE_WORK_RUNNING: '0' })).toThrow(
      /INSTANCE_WORK_RUNNING must be a whole number from 1/,
    );
    expect(() => readConfig({ INSTANCE_WORK_RUNNING: '20', INSTANCE_HEAVY_WORK_RUNNING: '21' })).toThrow(
      /INSTANCE_HEAVY_WORK_RUNNING must be a whole number from 1 to 20/,
    );
  });

  it('refuses a share of the event loop for heavy work that is no percentage from 1 to 100', () => {
    for (const wrong of ['0', '101', '0.5'])
      expect(() => readConfig({ HEAVY_WORK_LOOP_PERCENT: wrong })).toThrow(
        /HEAVY_WORK_LOOP_PERCENT must be a whole number from 1 to 100 \(percent of the event loop's time\)/,
      );
  });

  it("holds an account's streams to a tenth of a process's, and names the old per-key setting", () => {
    expect(readConfig({ EVENT_STREAMS_PER_PROCESS: '100' }).eventStreams.perAccount).toBe(10);
    expect(readConfig({ EVENT_STREAMS_PER_PROCESS: '5' }).eventStreams.perAccount).toBe(1);
    expect(() => readConfig({ EVENT_STREAMS_PER_PROCESS: '100', EVENT_STREAMS_PER_ACCOUNT: '11' })).toThrow(
      /EVENT_STREAMS_PER_ACCOUNT must be a whole number from 1 to 10/,
    );
    expect(() => readConfig({ EVENT_STREAMS_PER_KEY: '20' })).toThrow(
      /EVENT_STREAMS_PER_KEY is now EVENT_STREAMS_PER_ACCOUNT/,
    );
  });

  it('gives each worker its share of the failed API keys, so that workers do not multiply the limit', () => {
    expect(apiKeyFailuresPerProcess({ apiKeyFailuresPerMinute: 30, webConcurrency: 1 })).toBe(30);
    expect(apiKeyFailuresPerProcess({ apiKeyFailuresPerMinute: 30, webConcurrency: 4 })).toBe(8);
    expect(apiKeyFailuresPerProcess({ apiKeyFailuresPerMinute: 1, webConcurrency: 4 })).toBe(1);
    expect(apiKeyFailuresPerProcess({ apiKeyFailuresPerMinute: 0, webConcurrency: 4 })).toBe(0);
  });

  it('gives each worker its share of the requests without a key, counted in its memory', () => {
    expect(rateLimitAnonymousPerProcess({ rateLimitAnonymousPerMinute: 600, webConcurrency: 1 })).toBe(600);
    expect(rateLimitAnonymousPerProcess({ rateLimitAnonymousPerMinute: 601, webConcurrency: 4 })).toBe(151);
    expect(rateLimitAnonymousPerProcess({ rateLimitAnonymousPerMinute: 0, webConcurrency: 4 })).toBe(0);
    expect(() => readConfig({ RATE_LIMIT_ANONYMOUS_PER_MINUTE: 'many' })).toThrow(
      /RATE_LIMIT_ANONYMOUS_PER_MINUTE must be a whole number/,
    );
  });

  it("leaves the API a core: password threads are the host's cores less one, shared by its workers", () => {
    expect(defaultPasswordThreads(2, 1)).toBe(1);
    expect(defaultPasswordThreads(8, 1)).toBe(7);
    expect(defaultPasswordThreads(8, 3)).toBe(2);
    // Never none: each worker process needs one, even where they outnumber the cores.
    expect(defaultPasswordThreads(1, 1)).toBe(1);
    expect(defaultPasswordThreads(2, 4)).toBe(1);
    const server = { DATABASE_URL: 'postgresql://u@db:5432/x' };
    expect(readConfig({ ...server, WEB_CONCURRENCY: '64' }).passwordChecks.threads).toBe(1);
    expect(() => readConfig({ PASSWORD_CHECK_THREADS: '0' })).toThrow(
      "PASSWORD_CHECK_THREADS must be a whole number from 1 to 256 (threads per process), not '0'.",
    );
    expect(() => readConfig({ PASSWORD_CHECKS_QUEUED: 'some' })).toThrow(
      /PASSWORD_CHECKS_QUEUED must be a whole number/,
    );
  });

  it('refuses a metrics port that is no port, or the public one', () => {
    expect(() => readConfig({ METRICS_PORT: 'nine' })).toThrow(/METRICS_PORT must be a whole number from 0 to 65535/);
    expect(() => readConfig({ PORT: '3000', METRICS_PORT: '3000' })).toThrow(/METRICS_PORT must differ from PORT/);
  });

  it('keeps the head timeout within the request timeout, as Node requires', () => {
    expect(readConfig({ HTTP_REQUEST_TIMEOUT_MS: '3000' }).httpHeadersTimeoutMs).toBe(3_000);
    expect(() => readConfig({ HTTP_REQUEST_TIMEOUT_MS: '3000', HTTP_HEADERS_TIMEOUT_MS: '4000' })).toThrow(
      'HTTP_HEADERS_TIMEOUT_MS (4000) must not exceed HTTP_REQUEST_TIMEOUT_MS (3000)',
    );
  });

  it('refuses a webhook retry schedule that is not comma-separated whole seconds, saying what it takes', () => {
    const takes =
      'WEBHOOK_RETRY_SCHEDULE must be whole seconds from 1 to 604800 separated by commas, at most 50 of them';
    for (const value of ['5s,10s', '1,,2', '1;2', '0,5', '-1', '1.5', '604801', ',', Array(51).fill('1').join(',')])
      expect(() => readConfig({ WEBHOOK_RETRY_SCHEDULE: value })).toThrow(`${takes}, not '${value}'.`);
    expect(readConfig({ WEBHOOK_RETRY_SCHEDULE: '604800' }).webhookRetrySchedule).toEqual([604_800]);
  });

  it('refuses the embedded database in production unless accepted, and never asks on a server', () => {
    expect(() => readConfig({ NODE_ENV: 'production' })).toThrow(
      /NODE_ENV=production without DATABASE_URL .* ACCEPT_EMBEDDED_DATABASE=on/,
    );
    expect(readConfig({ NODE_ENV: 'production', ACCEPT_EMBEDDED_DATABASE: 'on' }).databaseUrl).toBeUndefined();
    expect(readConfig({ NODE_ENV: 'production', DATABASE_URL: 'postgresql://db/app' }).databaseUrl).toBe(
      'postgresql://db/app',
    );
    // Trying it and developing on it need nothing.
    expect(readConfig({ NODE_ENV: 'development' }).databaseUrl).toBeUndefined();
    expect(() => readConfig({ ACCEPT_EMBEDDED_DATABASE: 'maybe' })).toThrow(
      /ACCEPT_EMBEDDED_DATABASE must be on or off/,
    );
  });

  it('names every bad value at once', () => {
    let failure: unknown;
    try {
      readConfig({
        PORT: 'eighty',
        DATABASE_URL: 'mysql://x',
        CSRF_SECRET: 'short',
        LOG_LEVEL: 'loud',
        SHUTDOWN_GRACE_MS: '10s',
        WEB_CONCURRENCY: 'two',
        DATABASE_POOL_SIZE: '0',
        API_KEY_CACHE_SIZE: 'lots',
        DATABASE_PREPARED_STATEMENTS: 'sometimes',
        DATABASE_TIMEOUT_MS: '50',
        HTTP_REQUEST_TIMEOUT_MS: '5s',
        HTTP_HEADERS_TIMEOUT_MS: '-1',
        HTTP_KEEP_ALIVE_TIMEOUT_MS: '0',
        WEBHOOK_RETRY_SCHEDULE: '5 min',
      });
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(ConfigError);
    const message = failure instanceof Error ? failure.message : '';
    for (const name of [
      'PORT',
      'DATABASE_URL',
      'CSRF_SECRET',
      'LOG_LEVEL',
      'SHUTDOWN_GRACE_MS',
      'WEB_CONCURRENCY',
      'DATABASE_POOL_SIZE',
      'API_KEY_CACHE_SIZE',
      'DATABASE_PREPARED_STATEMENTS',
      'DATABASE_TIMEOUT_MS',
      'HTTP_REQUEST_TIMEOUT_MS',
      'HTTP_HEADERS_TIMEOUT_MS',
      'HTTP_KEEP_ALIVE_TIMEOUT_MS',
      'WEBHOOK_RETRY_SCHEDULE',
    ])
      expect(message).toContain(name);
  });

  describe('WEB_CONCURRENCY', () => {
    const server = { DATABASE_URL: 'postgresql://u@db:5432/x' };

    it.each(['0', '-1', '1.5', '2e1', '65', 'auto'])(
      "refuses '%s': a whole number of worker processes from 1 to 64",
      (value) => {
        expect(() => readConfig({ ...server, WEB_CONCURRENCY: value })).toThrow(
          `WEB_CONCURRENCY must be a whole number from 1 to 64 (worker processes), not '${value}'.`,
        );
      },
    );

    it('takes 1 to 64 worker processes on a PostgreSQL server', () => {
      expect(readConfig({ ...server, WEB_CONCURRENCY: ' 1 ' }).webConcurrency).toBe(1);
      expect(readConfig({ ...server, WEB_CONCURRENCY: '64' }).webConcurrency).toBe(64);
      expect(readConfig({ ...server, WEB_CONCURRENCY: '' }).webConcurrency).toBe(1);
    });

    it('refuses more than one worker on the embedded database, which one process owns', () => {
      for (const env of [
        { WEB_CONCURRENCY: '2' },
        { WEB_CONCURRENCY: '2', DATABASE_URL: '  ' },
        { WEB_CONCURRENCY: '2', DATA_DIR: '/var/lib/tns' },
      ]) {
        expect(() => readConfig(env)).toThrow(ConfigError);
        expect(() => readConfig(env)).toThrow(
          'WEB_CONCURRENCY=2 needs DATABASE_URL: the embedded database (PGlite) can only be used by one process.',
        );
      }
      expect(readConfig({ WEB_CONCURRENCY: '1' }).webConcurrency).toBe(1);
    });

    it("keeps all workers' default pools, with their listeners and job queues, within 80 connections", () => {
      const poolOf = (workers: number, cache = {}) =>
        readConfig({ ...server, ...cache, WEB_CONCURRENCY: String(workers) }).databasePoolSize;
      const workers = [1, 2, 8, 9, 16, 26, 64];
      expect(workers.map((count) => poolOf(count))).toEqual([10, 10, 7, 5, 2, 1, 1]);
      // Two listeners per process (event changes and key changes) and the job queue's one.
      expect(workers.slice(0, 5).map((count) => count * (poolOf(count) + 2 + 1))).toEqual([13, 26, 80, 72, 80]);
      // Without the key cache key changes are still heard, for the event streams of a revoked key.
      expect(workers.map((count) => poolOf(count, { API_KEY_CACHE_SIZE: '0' }))).toEqual([10, 10, 7, 5, 2, 1, 1]);
      expect(readConfig({ ...server, WEB_CONCURRENCY: '16', DATABASE_POOL_SIZE: '20' }).databasePoolSize).toBe(20);
    });

    it('divides the default budget over every instance: SERVICE_REPLICAS × WEB_CONCURRENCY processes', () => {
      const poolOf = (replicas: number, workers: number) =>
        readConfig({ ...server, SERVICE_REPLICAS: String(replicas), WEB_CONCURRENCY: String(workers) })
          .databasePoolSize;
      expect([poolOf(1, 4), poolOf(2, 4), poolOf(4, 4), poolOf(1, 16)]).toEqual([10, 7, 2, 2]);
      expect(() => readConfig({ ...server, SERVICE_REPLICAS: '0' })).toThrow(
        "SERVICE_REPLICAS must be a whole number from 1 to 1000 (instances of the service), not '0'.",
      );
    });
  });

  describe('behind a connection pooler', () => {
    const pooled = {
      DATABASE_URL: 'postgresql://u:p@pooler:6432/x',
      DATABASE_DIRECT_URL: 'postgresql://u:p@db:5432/x',
    };

    it("prepares no statements by default, pools node-postgres' 10 and counts 20 pooler connections", () => {
      const config = readConfig({ ...pooled, WEB_CONCURRENCY: '16' });
      expect(config).toMatchObject({
        databaseDirectUrl: 'postgresql://u:p@db:5432/x',
        databasePreparedStatements: false,
        databasePoolSize: 10,
        databasePoolerConnections: 20,
      });
      // PgBouncer 1.21 or later with max_prepared_statements keeps them: the operator may say so.
      expect(readConfig({ ...pooled, DATABASE_PREPARED_STATEMENTS: 'on' }).databasePreparedStatements).toBe(true);
    });

    it('refuses a direct URL without the pooler in DATABASE_URL, or that is no PostgreSQL URL', () => {
      expect(() => readConfig({ DATABASE_DIRECT_URL: pooled.DATABASE_DIRECT_URL })).toThrow(
        'DATABASE_DIRECT_URL needs DATABASE_URL: it names the server behind the pooler DATABASE_URL names.',
      );
      expect(() => readConfig({ ...pooled, DATABASE_DIRECT_URL: 'db:5432' })).toThrow(
        'DATABASE_DIRECT_URL must be a postgresql:// connection string (or unset).',
      );
    });

    it("refuses the pooler's connections without a pooler, where they would count nothing", () => {
      expect(() => readConfig({ DATABASE_URL: pooled.DATABASE_URL, DATABASE_POOLER_CONNECTIONS: '20' })).toThrow(
        'DATABASE_POOLER_CONNECTIONS is counted only behind a pooler: set DATABASE_DIRECT_URL too, or unset it.',
      );
      expect(() => readConfig({ ...pooled, DATABASE_POOLER_CONNECTIONS: '0' })).toThrow(
        'DATABASE_POOLER_CONNECTIONS must be a whole number from 1 to 10000 ' +
          "(the pooler's server connections), not '0'.",
      );
    });
  });

  describe('warnings at start', () => {
    it('warns when TRUST_PROXY believes any peer while the service listens beyond loopback', () => {
      for (const trustProxy of ['1', '2', 'true']) {
        const [warning, ...more] = configWarnings(readConfig({ TRUST_PROXY: trustProxy }));
        expect(more).toEqual([]);
        expect(warning).toContain(`TRUST_PROXY=${trustProxy} believes X-Forwarded-For from any address`);
        expect(warning).toContain('listens on 0.0.0.0');
      }
      expect(configWarnings(readConfig({ TRUST_PROXY: '1', HOST: '10.1.2.3' }))).toHaveLength(1);
    });

    it('is quiet with named proxies, without TRUST_PROXY, or on loopback only', () => {
      const quiet = [
        { TRUST_PROXY: 'loopback' },
        { TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' },
        {},
        { TRUST_PROXY: '0' },
        { TRUST_PROXY: '1', HOST: '127.0.0.1' },
        { TRUST_PROXY: 'true', HOST: 'localhost' },
        { TRUST_PROXY: '1', HOST: '::1' },
      ];
      for (const env of quiet) expect(configWarnings(readConfig(env))).toEqual([]);
    });
  });
});

describe('.env.example copied to .env', () => {
  // `npm start` loads .env when there is one (node --env-file, given only then: Node's own
  // --env-file-if-exists prints a line at every start without one), and .env.example invites the
  // copy: each of its settings must be one the service accepts, and what it says is each default.
  it('is read as the defaults it names', () => {
    const example = parseEnv(readFileSync(join(__dirname, '../../.env.example'), 'utf8'));
    expect(readConfig(example)).toEqual(readConfig({}));
  });

  it('is loaded by npm start', () => {
    const { scripts } = JSON.parse(readFileSync(join(__dirname, '../../package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(scripts['start']).toContain('exec node $([ -f .env ] && echo --env-file=.env) ');
  });
});
