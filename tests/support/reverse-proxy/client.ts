import { Agent, request as httpsRequest } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';

export interface ProxyResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
  /** The body parsed as JSON (any JSON media type), otherwise undefined. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- many shapes, read field by field, as supertest's
  readonly body: any;
}

export interface ProxyRequest {
  readonly method?: string;
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** An object is sent as JSON; a string as it is. */
  readonly body?: object | string;
  /** Sent with Transfer-Encoding: chunked instead of Content-Length. */
  readonly chunked?: boolean;
  /**
   * The client's own address: any of 127.0.0.0/8 on Linux, so nginx sees a client address that is
   * not its own (it reaches the service from 127.0.0.1).
   */
  readonly from?: string;
  /** Connections kept open between requests (keptAlive), instead of one connection per request. */
  readonly agent?: Agent;
}

/**
 * A client of nginx's TLS listener that trusts its test certificate, one connection per request
 * unless a request names an agent.
 */
export function proxyClient(nginx: { readonly port: number; readonly certificate: string }) {
  return (options: ProxyRequest): Promise<ProxyResponse> =>
    new Promise((resolve, reject) => {
      const payload =
        options.body === undefined
          ? undefined
          : typeof options.body === 'string'
            ? options.body
            : JSON.stringify(options.body);
      const headers: Record<string, string> = {
        ...(payload !== undefined && typeof options.body === 'object' ? { 'Content-Type': 'application/json' } : {}),
        ...options.headers,
      };
      // Node frames a GET body only when told how: a length, or chunks.
      if (payload !== undefined)
        headers[options.chunked ? 'Transfer-Encoding' : 'Content-Length'] = options.chunked
          ? 'chunked'
          : String(Buffer.byteLength(payload));
      const req = httpsRequest(
        {
          host: '127.0.0.1',
          port: nginx.port,
          method: options.method ?? 'GET',
          path: options.path,
          headers,
          ca: nginx.certificate,
          localAddress: options.from ?? '127.0.0.1',
          agent: options.agent ?? false,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            const json = /^application\/([a-z.+-]*\+)?json/.test(res.headers['content-type'] ?? '');
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              text,
              body: json ? JSON.parse(text) : undefined,
            });
          });
        },
      );
      req.on('error', reject);
      if (payload !== undefined) req.write(payload);
      req.end();
    });
}

export type ProxyClient = ReturnType<typeof proxyClient>;

/**
 * Up to `sockets` connections from `from` to nginx, kept open between requests: many requests a
 * second from one address, where a TLS handshake each would be the client's bottleneck.
 */
export function keptAlive(nginx: { readonly certificate: string }, from: string, sockets: number): Agent {
  return new Agent({ keepAlive: true, maxSockets: sockets, ca: nginx.certificate, localAddress: from });
}
