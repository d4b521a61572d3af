import { once } from 'node:events';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { Logger } from 'pino';
import { answerClientErrors } from './client-errors';

/** The HTTP server's timeouts (HTTP_*_TIMEOUT_MS; docs/operations.md, "Slow clients"). */
export interface HttpTimeouts {
  /** The whole request, head and body, must have arrived within this; else 408 and the connection is closed. */
  readonly requestMs: number;
  /** Its head within this; at most `requestMs`. */
  readonly headersMs: number;
  /** An idle keep-alive connection is closed after this. */
  readonly keepAliveMs: number;
}

/**
 * How often Node looks for requests past their timeouts (its default, 30 s, would let a slow body
 * hold its connection that much longer than the bound).
 */
const TIMEOUT_CHECK_MS = 1_000;

/**
 * The server of one serving process (single or cluster worker): the app, its timeouts, problem
 * answers for what Node refuses (logged on `logger`, as the request log logs the rest).
 */
export function createHttpServer(app: RequestListener, timeouts: HttpTimeouts, logger: Logger): Server {
  const server = createServer(
    {
      requestTimeout: timeouts.requestMs,
      headersTimeout: timeouts.headersMs,
      keepAliveTimeout: timeouts.keepAliveMs,
      connectionsCheckingInterval: Math.min(TIMEOUT_CHECK_MS, timeouts.headersMs),
    },
    app,
  );
  answerClientErrors(server, logger);
  return server;
}

/** Listens on `port` at `host`; rejects as the listener fails (the port taken, the host not ours). */
export async function listenOn(server: Server, port: number | undefined, host: string): Promise<void> {
  server.listen(port, host);
  // Rejects on the server's 'error' event, which is how listen() fails.
  await once(server, 'listening');
}
