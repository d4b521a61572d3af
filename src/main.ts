import 'reflect-metadata';
import { pino } from 'pino';
import { buildContainer } from './composition/container';
import { ConfigError, readConfig } from './config';
import { openDatabase } from './infrastructure/database/open-database';
import { isDatabaseUnavailable } from './infrastructure/database/prisma-client';
import { databaseReadiness } from './infrastructure/database/readiness';
import { loadServiceSecret } from './infrastructure/persistence/prisma/service-secrets';
import { createApp } from './interfaces/http/app';
import { answerClientErrors } from './interfaces/http/client-errors';
import { gracefulClose } from './interfaces/http/graceful-close';

async function main(): Promise<void> {
  const config = readConfig(process.env);
  const database = await openDatabase({ DATABASE_URL: config.databaseUrl, DATA_DIR: config.dataDir });
  // Every process behind one proxy must sign forms alike: a configured secret, or the database's.
  const formSecret = config.csrfSecret ?? (await loadServiceSecret(database.prisma, 'csrf'));
  const logger = pino({ level: config.logLevel });
  const app = createApp(buildContainer({ prisma: database.prisma }), {
    trustProxy: config.trustProxy,
    formSecret,
    logger,
    readiness: databaseReadiness(database.prisma),
    isUnavailable: isDatabaseUnavailable,
    rateLimit: { perKeyPerSecond: config.rateLimitPerSecond, accountsPerMinute: config.rateLimitAccountsPerMinute },
  });
  const server = app.listen(config.port, config.host, () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const host = config.host === '0.0.0.0' ? 'localhost' : config.host;
    console.log(`Time Navigation Service listening on http://${host}:${port}`);
    console.log(`Data: ${database.description}`);
  });

  answerClientErrors(server);

  const connections = gracefulClose(server);
  const shutdown = (signal: NodeJS.Signals): void => {
    // Stop accepting, let in-flight requests finish (for at most the grace: a stuck client must
    // not hold a deploy), then release the database and exit 0. See docs/operations.md.
    const closed = connections.close(config.shutdownGraceMs);
    console.log(`${signal}: no longer accepting connections; requests in flight get ${config.shutdownGraceMs} ms to finish.`);
    closed
      .then(({ cut }) => {
        if (cut) console.log('Shutdown grace over: the connections still open were closed.');
        return database.close();
      })
      .then(
        () => process.exit(0),
        (error: unknown) => {
          console.error(error);
          process.exit(1);
        },
      );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
