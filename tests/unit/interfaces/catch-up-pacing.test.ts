// A stream's catch-up pays for its events as the listing's pages do: one request of its account per
// 100 events after the first 100, taking at most half of each window's quota, and waiting for the
// next window when it may not take more (docs/decisions.md, "Event streams").
import type { RateLimitDecision } from '../../../src/core/domain/rate-limit';
import { pacedCatchUp } from '../../../src/interfaces/http/event-stream/catch-up-pacing';
import type { EventStreamSource, SseMessage } from '../../../src/interfaces/http/event-stream/event-stream-source';
import type { AccountLimit } from '../../../src/interfaces/http/middleware/rate-limit';
import { waitFor } from '../../support/wait-for';

const event = (n: number, kind = 'recorded'): SseMessage => ({ id: `p${n}`, event: kind, data: `{"n":${n}}` });
const caughtUp: SseMessage = { event: 'caught-up', data: '{}' };
const events = (count: number, from = 1, kind = 'recorded') =>
  Array.from({ length: count }, (_, n) => event(from + n, kind));

/** A source of these messages, noting how many were taken from it and whether it was let go. */
function sourceOf(messages: readonly SseMessage[]) {
  const seen = { taken: 0, returned: false, closed: false };
  const source: EventStreamSource = {
    async *[Symbol.asyncIterator]() {
      try {
        for (const message of messages) {
          seen.taken += 1;
          yield message;
        }
      } finally {
        seen.returned = true;
      }
    },
    close: () => {
      seen.closed = true;
    },
  };
  return { source, seen };
}

/**
 * An account whose quota is `quota` a second, answering each charge with `decide(n)` for the n-th
 * charge (from 1): by default, allowed with a whole quota left.
 */
function account(quota: number, decide: (n: number) => Partial<RateLimitDecision> = () => ({})) {
  const charges: number[] = [];
  const limit: AccountLimit = {
    quota,
    async charge(_accountId, cost) {
      charges.push(cost);
      return { allowed: true, remaining: quota, resetSeconds: 1, ...decide(charges.length) };
    },
  };
  return { limit, charges };
}

/** Reads `source` paced by `limit` to its end, noting how many messages had come when each wait began. */
async function readAll(
  source: EventStreamSource,
  limit: AccountLimit,
  waitsAt: number[] = [],
  ended = new AbortController().signal,
) {
  const received: SseMessage[] = [];
  const paced = pacedCatchUp(source, limit, 'acc', ended, () => waitsAt.push(received.length));
  for await (const message of paced) received.push(message);
  return received;
}

it('charges one request before the 101st and the 201st event of the catch-up, none after caught-up', async () => {
  const messages = [...events(250), caughtUp, ...events(150, 251, 'updated')];
  const { source } = sourceOf(messages);
  const { limit, charges } = account(100);
  const waitsAt: number[] = [];
  expect(await readAll(source, limit, waitsAt)).toEqual(messages);
  expect(charges).toEqual([1, 1]);
  expect(waitsAt).toEqual([]);
});

it('charges nothing for a catch-up of 100 events or fewer', async () => {
  const { source } = sourceOf([...events(100), caughtUp]);
  const { limit, charges } = account(100, () => ({ allowed: false, remaining: 0 }));
  expect(await readAll(source, limit)).toHaveLength(101);
  expect(charges).toEqual([]);
});

it('holds the 101st event back through a refusal, then sends it once a charge is allowed', async () => {
  const messages = [...events(101), caughtUp];
  const { source } = sourceOf(messages);
  const { limit, charges } = account(100, (n) => (n === 1 ? { allowed: false, remaining: 0 } : {}));
  const waitsAt: number[] = [];
  expect(await readAll(source, limit, waitsAt)).toEqual(messages);
  expect(waitsAt).toEqual([100]);
  expect(charges).toEqual([1, 1]);
});

it('waits for the next window once a charge leaves less than half of the quota to the account', async () => {
  const messages = [...events(301), caughtUp];
  const { source } = sourceOf(messages);
  // A quota of 10: the first charge leaves 5 (half: no wait), the second 4 (less: the third waits first).
  const { limit, charges } = account(10, (n) => ({ remaining: 6 - n }));
  const waitsAt: number[] = [];
  expect(await readAll(source, limit, waitsAt)).toEqual(messages);
  expect(charges).toEqual([1, 1, 1]);
  expect(waitsAt).toEqual([300]);
});

it('stops waiting and ends when the stream ends during a wait, taking nothing more from its source', async () => {
  const { source, seen } = sourceOf([...events(300), caughtUp]);
  // A minute's Retry-After: only the stream's end ends this wait within the test's time.
  const { limit } = account(100, () => ({ allowed: false, remaining: 0, resetSeconds: 60 }));
  const ended = new AbortController();
  const waitsAt: number[] = [];
  const read = readAll(source, limit, waitsAt, ended.signal);
  await waitFor(() => waitsAt.length === 1, { what: 'a wait' });
  ended.abort();
  expect(await read).toHaveLength(100);
  expect(seen.taken).toBe(101);
  expect(seen.returned).toBe(true);
});

it('ends with the error of a charge that fails (the database gone), letting go of its source', async () => {
  const { source, seen } = sourceOf([...events(150), caughtUp]);
  const unavailable = new Error('connection terminated');
  const limit: AccountLimit = { quota: 100, charge: () => Promise.reject(unavailable) };
  await expect(readAll(source, limit)).rejects.toBe(unavailable);
  expect(seen.returned).toBe(true);
});

it('closes the source it paces', () => {
  const { source, seen } = sourceOf([]);
  pacedCatchUp(source, account(1).limit, 'acc', new AbortController().signal, () => undefined).close();
  expect(seen.closed).toBe(true);
});
