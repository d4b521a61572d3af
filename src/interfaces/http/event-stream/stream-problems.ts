import type { FeedInterrupted } from '../../../core/ports/event-feed';
import { RETRY_AFTER_SECONDS } from '../middleware/problem-handler';
import { Problem } from '../problem';

const RETRY = { 'Retry-After': String(RETRY_AFTER_SECONDS) };

/**
 * The account holds its most streams, all its keys and every process together. Retry-After, which
 * every 429 carries: a stream of the account must end first, which one of its clients may be doing.
 */
export function tooManyStreams(limit: number): Problem {
  return new Problem(
    429,
    'too_many_streams',
    `This account holds its most event streams (${limit}), all its API keys together; close one first.`,
    { limit },
    RETRY,
  );
}

/** This process holds its most streams: another behind the proxy may take it. */
export function capacityReached(limit: number): Problem {
  return new Problem(
    503,
    'stream_capacity_reached',
    `This process holds its most event streams (${limit}); retry shortly.`,
    { limit },
    RETRY,
  );
}

/** The process is stopping, or ended the stream before it started: reconnect (to another process). */
export function notStreamingNow(): Problem {
  return new Problem(503, 'service_unavailable', 'The service is stopping; reconnect to another process.', {}, RETRY);
}

/** Changes cannot be heard now (the database is out of reach, or the service stops): retry shortly. */
export function unheard(error: FeedInterrupted): Problem {
  return new Problem(
    503,
    'service_unavailable',
    `Events cannot be streamed now: ${error.message}. Retry shortly.`,
    {},
    RETRY,
  );
}
