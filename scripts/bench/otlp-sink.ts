// A collector stand-in for measuring what tracing costs the service: it takes OTLP/HTTP exports
// and answers 200 without decoding them, so the figures are the service's work, not a collector's.
import { createServer } from 'node:http';

let sink: Promise<string> | undefined;

/** The sink's endpoint, started once per benchmark process. */
export function otlpSinkEndpoint(): Promise<string> {
  sink ??= new Promise((resolve) => {
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'Content-Type': 'application/x-protobuf' }).end());
    });
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.unref();
      resolve(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
    });
  });
  return sink;
}
