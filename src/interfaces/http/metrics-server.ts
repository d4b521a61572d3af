import { createServer, type Server } from 'node:http';
import { listenOn } from './http-server';

/** What a scrape answers: the exposition text and its content type. */
export interface MetricsSource {
  readonly contentType: string;
  metrics(): Promise<string>;
}

/**
 * `GET /metrics` on a listener of its own (METRICS_PORT on METRICS_HOST, loopback by default),
 * never on the public one: what the process counts is for its operators, and the shipped proxy
 * forwards nothing to it. Anything else is 404; a failure to collect is 500, said in one line.
 */
export function createMetricsServer(source: MetricsSource, onFailure: (error: unknown) => void): Server {
  return createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not found: scrape GET /metrics.\n');
      return;
    }
    source.metrics().then(
      (text) => res.writeHead(200, { 'Content-Type': source.contentType, 'Cache-Control': 'no-store' }).end(text),
      (error: unknown) => {
        onFailure(error);
        res
          .writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' })
          .end('The metrics could not be collected.\n');
      },
    );
  });
}

/** The metrics listener, as configured: rejects as the public one does. */
export async function listenForMetrics(
  server: Server,
  config: { readonly metricsPort: number | undefined; readonly metricsHost: string },
): Promise<void> {
  await listenOn(server, config.metricsPort, config.metricsHost);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.metricsPort;
  console.log(`Metrics: http://${config.metricsHost}:${port}/metrics`);
}
