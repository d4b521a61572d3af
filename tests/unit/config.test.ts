import { ConfigError, readConfig } from '../../src/config';

describe('readConfig', () => {
  it('runs with no settings at all: port 3000, embedded database in .data, no proxy trusted', () => {
    expect(readConfig({})).toEqual({
      port: 3000,
      host: '0.0.0.0',
      databaseUrl: undefined,
      dataDir: '.data',
      trustProxy: false,
      csrfSecret: undefined,
      logLevel: 'info',
      rateLimitPerSecond: 100,
      rateLimitAccountsPerMinute: 10,
      shutdownGraceMs: 10_000,
    });
  });

  it('reads every setting', () => {
    const config = readConfig({
      PORT: '8080',
      HOST: '127.0.0.1',
      DATABASE_URL: 'postgresql://u@db:5432/x',
      DATA_DIR: '/var/lib/tns',
      TRUST_PROXY: '1',
      CSRF_SECRET: 'x'.repeat(32),
      LOG_LEVEL: 'WARN',
      RATE_LIMIT_PER_SECOND: '0',
      RATE_LIMIT_ACCOUNTS_PER_MINUTE: '5',
      SHUTDOWN_GRACE_MS: '2500',
    });
    expect(config).toEqual({
      port: 8080,
      host: '127.0.0.1',
      databaseUrl: 'postgresql://u@db:5432/x',
      dataDir: '/var/lib/tns',
      trustProxy: 1,
      csrfSecret: 'x'.repeat(32),
      logLevel: 'warn',
      rateLimitPerSecond: 0,
      rateLimitAccountsPerMinute: 5,
      shutdownGraceMs: 2500,
    });
  });

  it('names every bad value at once', () => {
    let failure: unknown;
    try {
      readConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x', CSRF_SECRET: 'short', LOG_LEVEL: 'loud', SHUTDOWN_GRACE_MS: '10s' });
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(ConfigError);
    const message = failure instanceof Error ? failure.message : '';
    for (const name of ['PORT', 'DATABASE_URL', 'CSRF_SECRET', 'LOG_LEVEL', 'SHUTDOWN_GRACE_MS']) expect(message).toContain(name);
  });
});
