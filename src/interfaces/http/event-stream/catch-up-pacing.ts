import { setTimeout as sleep } from 'node:timers/promises';
import { type AccountLimit, ITEMS_PER_REQUEST } from '../middleware/rate-limit';
import type { EventStreamSource, SseMessage } from './event-stream-source';

/** A stream's catch-up starts waiting for its account's rate limit, this long (its Retry-After). */
export type OnCatchUpWait = (retryAfterSeconds: number) => void;

/**
 * `source` with its catch-up (every event it sends before `caught-up`) paid for as the listing's
 * pages are: one request of the account per ITEMS_PER_REQUEST events, the first of them paid by the
 * opening. Before the 101st, 201st, ... event the account is charged one request more, so that a
 * stream delivers no more of an account's history a second than its limit lets the listing read
 * (docs/decisions.md, "Event streams"). What comes after `caught-up` is free: each change was written
 * by a request that was counted. A wait ends early when `ended` aborts.
 */
export function pacedCatchUp(
  source: EventStreamSource,
  limit: AccountLimit,
  accountId: string,
  ended: AbortSignal,
  onWait: OnCatchUpWait,
): EventStreamSource {
  const payForMore = payer(limit, accountId, ended, onWait);
  return { [Symbol.asyncIterator]: () => paced(source, payForMore), close: () => source.close() };
}

async function* paced(
  messages: AsyncIterable<SseMessage>,
  payForMore: () => Promise<boolean>,
): AsyncGenerator<SseMessage> {
  let events = 0;
  let caughtUp = false;
  for await (const message of messages) {
    if (message.event === 'caught-up') caughtUp = true;
    else if (!caughtUp) events += 1;
    // The event opening a further hundred was read with its page before it is paid for: a stream
    // whose account cannot pay holds that one page, no more.
    const opensAHundred = !caughtUp && events > ITEMS_PER_REQUEST && events % ITEMS_PER_REQUEST === 1;
    if (opensAHundred && !(await payForMore())) return;
    yield message;
  }
}

/**
 * Pays one request at a time, waiting out refusals; false once the stream has ended. A catch-up
 * takes at most half of each window's quota: once a charge leaves less than that to its account,
 * the next waits for the next window, so the account's other requests (a dashboard, its writes)
 * keep the other half while it reads a long history.
 */
function payer(
  limit: AccountLimit,
  accountId: string,
  ended: AbortSignal,
  onWait: OnCatchUpWait,
): () => Promise<boolean> {
  const reserve = Math.floor(limit.quota / 2);
  let restFirst = 0;
  return async () => {
    for (;;) {
      if (restFirst > 0) {
        onWait(restFirst);
        if (!(await rest(restFirst, ended))) return false;
        restFirst = 0;
      }
      const decision = await limit.charge(accountId, 1);
      if (ended.aborted) return false;
      // At least a second: a window's reset is never sooner, and a wait of 0 would ask again at once.
      const untilNextWindow = Math.max(1, decision.resetSeconds);
      if (!decision.allowed || decision.remaining < reserve) restFirst = untilNextWindow;
      if (decision.allowed) return true;
    }
  };
}

/** Waits `seconds`; false when the stream ended meanwhile. */
async function rest(seconds: number, ended: AbortSignal): Promise<boolean> {
  try {
    await sleep(seconds * 1000, undefined, { signal: ended });
    return true;
  } catch {
    return false;
  }
}
