// A webhook receiver on a local address for the sender's tests: it records what reached it and
// answers as each test says, over HTTP or, given a certificate, HTTPS.
import {
  createServer as createHttpServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { SelfSigned } from './self-signed-certificate';

export interface Received {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** The address the connection reached. */
  readonly localAddress: string;
  /** The name the TLS client asked for (SNI), over HTTPS. */
  readonly servername: string | undefined;
}

/** Answers a request whose body has arrived; leaving `response` unanswered makes a slow endpoint. */
export type Answer = (response: ServerResponse, received: Received) => void;

export interface LocalReceiver {
  readonly port: number;
  readonly received: readonly Received[];
  close(): Promise<void>;
}

export interface ReceiverOptions {
  readonly host?: string;
  readonly port?: number;
  readonly tls?: SelfSigned;
}

export async function startReceiver(answer: Answer, options: ReceiverOptions = {}): Promise<LocalReceiver> {
  const received: Received[] = [];
  const onRequest = (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry: Received = {
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        localAddress: request.socket.localAddress ?? '',
        servername: servernameOf(request.socket),
      };
      received.push(entry);
      answer(response, entry);
    });
  };
  const server: Server = options.tls
    ? createHttpsServer({ cert: options.tls.cert, key: options.tls.key }, onRequest)
    : createHttpServer(onRequest);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port nothing listens on: one the system gave a moment ago, closed again. */
export async function closedPort(): Promise<number> {
  const receiver = await startReceiver(() => undefined);
  await receiver.close();
  return receiver.port;
}

const servernameOf = (socket: Socket) =>
  'servername' in socket && typeof socket.servername === 'string' ? socket.servername : undefined;
