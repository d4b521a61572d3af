import type { Server, ServerResponse } from 'node:http';

export interface GracefulClose {
  /**
   * Stops accepting connections, lets the requests in flight finish, and resolves once every
   * connection is closed: when the last answer is sent, or when `graceMs` has passed and the
   * connections still open are cut (`cut` is then true). See docs/operations.md.
   */
  close(graceMs: number): Promise<{ cut: boolean }>;
}

/**
 * Watches `server`'s requests from the start, so that a close can end keep-alive connections
 * after their answer in flight: `server.close()` alone closes only idle connections, and a client
 * that keeps a connection busy would then be served, and hold the process, until the grace runs out.
 */
export function gracefulClose(server: Server): GracefulClose {
  const inFlight = new Set<ServerResponse>();
  let closing = false;
  // Once closing, each answer ends its connection: `Connection: close` while its head is unsent,
  // otherwise by closing the connection as soon as it is idle again.
  const endConnectionAfter = (res: ServerResponse) => {
    if (!res.headersSent) res.setHeader('Connection', 'close');
    else res.once('finish', () => setImmediate(() => server.closeIdleConnections()));
  };
  // Ahead of the app, so that no answer can be sent before it is counted.
  server.prependListener('request', (_req, res: ServerResponse) => {
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
    if (closing) endConnectionAfter(res);
  });
  return {
    close(graceMs) {
      closing = true;
      return new Promise((resolve) => {
        let cut = false;
        const grace = setTimeout(() => {
          cut = true;
          server.closeAllConnections();
        }, graceMs);
        server.close(() => {
          clearTimeout(grace);
          resolve({ cut });
        });
        for (const res of inFlight) endConnectionAfter(res);
        server.closeIdleConnections();
      });
    },
  };
}
