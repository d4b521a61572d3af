import type { Server } from 'node:http';
import type { Express } from 'express';
import { proxyClient, type ProxyClient } from './client';
import { startNginx, type Nginx } from './nginx';

export interface BehindNginx {
  readonly nginx: Nginx;
  /** Requests to nginx's TLS listener. */
  readonly client: ProxyClient;
  close(): Promise<void>;
}

/** Serves `app` on a loopback port and puts nginx, with the deployment's config, in front of it. */
export async function behindNginx(app: Express): Promise<BehindNginx> {
  const server = await listenOnLoopback(app);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  let nginx: Nginx;
  try {
    nginx = await startNginx(`127.0.0.1:${port}`);
  } catch (error) {
    await closeServer(server);
    throw error;
  }
  return {
    nginx,
    client: proxyClient(nginx),
    async close() {
      // nginx first: it holds keep-alive connections to the service.
      try {
        await nginx.stop();
      } finally {
        await closeServer(server);
      }
    },
  };
}

function listenOnLoopback(app: Express): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(0, '127.0.0.1', (error?: Error) => (error ? reject(error) : resolve(server)));
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
