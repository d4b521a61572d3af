import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Express } from 'express';
import { EventSource } from 'eventsource';

/** One message a stream delivered: its SSE event name, id and parsed data. */
export interface Received {
  readonly type: string;
  readonly id: string;
  readonly data: Record<string, unknown>;
}

const TYPES = ['recorded', 'updated', 'caught-up'] as const;

/** An app served on a loopback port, as a stream client needs; `dropConnections` cuts every socket. */
export async function serveOnLoopback(app: Express): Promise<{
  readonly url: string;
  dropConnections(): void;
  close(): Promise<void>;
}> {
  const sockets = new Set<Socket>();
  const server: Server = createServer(app);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    dropConnections: () => sockets.forEach((socket) => socket.destroy()),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A stream read by the `eventsource` package (the WHATWG EventSource for Node, which reconnects on
 * its own and sends `Last-Event-ID` when it does): every message kept in order of arrival.
 */
export function openStream(
  url: string,
  auth: string,
  options: {
    readonly lastEventId?: string;
    /** Held until this settles, a reconnection: to write what it must then find before it asks. */
    readonly reconnectAfter?: Promise<unknown>;
  } = {},
): {
  readonly received: Received[];
  /** Resolves once `count` messages have come (rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  /** Connections the client opened so far (1, then one per reconnection). */
  readonly opened: number;
  /**
   * The status of each answer that was not a stream (a 429 or 503 refusal): after one the WHATWG
   * EventSource gives up, where a client honouring its Retry-After opens a stream again.
   */
  readonly refusals: readonly number[];
  close(): void;
} {
  const received: Received[] = [];
  const refusals: number[] = [];
  let opened = 0;
  const waiters: Array<() => void> = [];
  const source = new EventSource(url, {
    fetch: async (input, init) => {
      const headers: Record<string, string> = { ...(init?.headers as Record<string, string>), Authorization: auth };
      // A first connection resuming a stream of before: what a client that kept the id sends.
      if (opened === 0 && options.lastEventId) headers['Last-Event-ID'] = options.lastEventId;
      else if (opened > 0) await options.reconnectAfter;
      opened += 1;
      const answer = await fetch(input, { ...init, headers });
      if (answer.status !== 200) refusals.push(answer.status);
      return answer;
    },
  });
  for (const type of TYPES) {
    source.addEventListener(type, (event) => {
      received.push({ type, id: event.lastEventId, data: JSON.parse(event.data) as Record<string, unknown> });
      waiters.splice(0).forEach((wake) => wake());
    });
  }
  return {
    received,
    get opened() {
      return opened;
    },
    refusals,
    waitFor(count, timeoutMs = 5_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`${received.length} of ${count} messages within ${timeoutMs} ms`)),
          timeoutMs,
        );
        const check = (): void => {
          if (received.length >= count) {
            clearTimeout(timer);
            resolve(received.slice(0, count));
          } else waiters.push(check);
        };
        check();
      });
    },
    close: () => source.close(),
  };
}
