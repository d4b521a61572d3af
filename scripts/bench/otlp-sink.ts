// A collector stand-in for measuring what tracing costs the service: it takes OTLP/HTTP exports
// and answers 200 without decoding them, so the figures are the service's work, not a collector's.
// With BENCH_TRACE_FILE it appends each export (OTLP/JSON then, service.ts) to that file as a line,
// to read where a slow request's time went.
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:http';

/** Where the spans are kept, if anywhere. */
export const TRACE_FILE = process.env.BENCH_TRACE_FILE;

let sink: Promise<string> | undefined;

/** The sink's endpoint, started once per benchmark process. */
export function otlpSinkEndpoint(): Promise<string> {
  sink ??= new Promise((resolve) => {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      if (TRACE_FILE) req.on('data', (chunk: Buffer) => chunks.push(chunk));
      else req.resume();
      req.on('end', () => {
        if (TRACE_FILE) appendFileSync(TRACE_FILE, `${Buffer.concat(chunks).toString()}\n`);
        res.writeHead(200, { 'Content-Type': 'application/x-protobuf' }).end();
      });
    });
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.unref();
      resolve(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
    });
  });
  return sink;
}
