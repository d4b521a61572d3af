import { setTimeout as sleep } from 'node:timers/promises';
import { type ChargeAccount, ITEMS_PER_REQUEST } from '../middleware/rate-limit';
import type { EventStreamSource, SseMessage } from './event-stream-source';

/** Where a stream's catch-up waited for its account's rate limit: each wait, as it starts. */
export type OnCatchUpWait = (retryAfterSeconds: number) => void;

/**
 * `source` with its catch-up (every event it sends before `caught-up`) paid for as the listing's
 * pages are: one request of the account per ITEMS_PER_REQUEST events, the first of them paid by the
 * opening. Before the 101st, 201st, ... event the account is charged one request more; when its
 * quota is spent, the stream waits for the window the refusal names (its Retry-After) and asks
 * again, so that a stream delivers no more of an account's events a second than its limit lets the
 * listing read (docs/decisions.md, "Event streams"). What comes after `caught-up` is free: each
 * change was written by a request that was counted. A wait ends early when `ended` aborts.
 */
export function pacedCatchUp(
  source: EventStreamSource,
  charge: ChargeAccount,
  accountId: string,
  ended: AbortSignal,
  onWait: OnCatchUpWait,
): EventStreamSource {
  const turn = () => nextTurn(charge, accountId, ended, onWait);
  return { [Symbol.asyncIterator]: () => paced(source, turn), close: () => source.close() };
}

async function* paced(messages: AsyncIterable<SseMessage>, turn: () => Promise<boolean>): AsyncGenerator<SseMessage> {
  let events = 0;
  let caughtUp = false;
  for await (const message of messages) {
    if (message.event === 'caught-up') caughtUp = true;
    else if (!caughtUp && ++events % ITEMS_PER_REQUEST === 1 && events > 1 && !(await turn())) return;
    yield message;
  }
}

/** Charges one request, waiting out refusals; false once the stream has ended. */
async function nextTurn(
  charge: ChargeAccount,
  accountId: string,
  ended: AbortSignal,
  onWait: OnCatchUpWait,
): Promise<boolean> {
  for (;;) {
    const decision = await charge(accountId, 1);
    if (ended.aborted) return false;
    if (decision.allowed) return true;
    onWait(decision.resetSeconds);
    try {
      await sleep(decision.resetSeconds * 1000, undefined, { signal: ended });
    } catch {
      return false;
    }
  }
}
