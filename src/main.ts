import cluster from 'node:cluster';
import { ConfigError, readConfig } from './config';

/**
 * WEB_CONCURRENCY=1 (the default): this process serves (server.ts). More: this process becomes the
 * cluster primary (cluster-primary.ts), and each worker it forks runs this file again and serves.
 * Each side loads only its own modules: the primary needs neither Express nor the Prisma client.
 */
async function main(): Promise<void> {
  const config = readConfig(process.env);
  if (config.webConcurrency > 1 && cluster.isPrimary) {
    const { runPrimary } = await import('./cluster-primary.js');
    await runPrimary(config);
  } else {
    const { serve } = await import('./server.js');
    await serve(config);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
