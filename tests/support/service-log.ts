import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';

export interface ServiceLog {
  /** What the service passes as its logger: one JSON line per request. */
  readonly logger: Logger;
  /** The lines written so far, parsed, as a log shipper would read them. */
  readonly lines: Array<Record<string, unknown>>;
}

export function serviceLog(): ServiceLog {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()));
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}
