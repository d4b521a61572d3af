import { pino, type Logger } from 'pino';
import type { Config } from '../config';
import { traceIdsOfLogLine } from '../infrastructure/telemetry/tracing';

/** The process's log, on standard output; each line carries its trace's ids when tracing is on. */
export function createProcessLogger(config: Config, traced: boolean): Logger {
  return pino({ level: config.logLevel, ...(traced && { mixin: traceIdsOfLogLine }) }, requestLogDestination());
}

/** Linux's PIPE_BUF: a write of at most this many bytes to a pipe is never interleaved with another. */
const PIPE_BUF = 4096;

/**
 * Standard output, written in blocks of at least 2 KiB or every 250 ms, whichever comes first,
 * rather than each line on its own: fewer writes. Written from the event loop (pino's default),
 * not as jobs of the thread pool: with the writes on the pool, each scavenge of a listing under
 * load kept nearly three times as much alive, and the CPU per request of a read rose by a third
 * (docs/performance.md, "The request log"). A log reader that falls behind slows the service
 * rather than growing a buffer in its memory. A block is at most 4 KiB, the size a pipe takes
 * whole, so the blocks of worker processes sharing one pipe never cut into each other's lines.
 * What is left is written when the process exits, a crash included; a SIGKILL loses at most the
 * last 250 ms of lines.
 */
function requestLogDestination(): pino.DestinationStream {
  const destination = pino.destination({
    dest: 1,
    sync: true,
    minLength: 2048,
    maxWrite: PIPE_BUF,
    periodicFlush: 250,
  });
  // pino flushes an asynchronous destination when the process exits, not a synchronous one: the
  // last block is written here.
  process.once('exit', () => {
    try {
      destination.flushSync();
    } catch (error) {
      // As pino does on a broken pipe: the reader of standard output is gone, nothing can be written.
      if ((error as NodeJS.ErrnoException).code !== 'EPIPE') throw error;
    }
  });
  return destination;
}
