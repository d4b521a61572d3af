// A stream's catch-up pays for its events as the listing's pages do: one request of its account per
// 100 events after the first 100, waiting for the next window when the quota is spent
// (docs/decisions.md, "Event streams").
import type { RateLimitDecision } from '../../../src/core/domain/rate-limit';
import { pacedCatchUp } from '../../../src/interfaces/http/event-stream/catch-up-pacing';
import type { EventStreamSource, SseMessage } from '../../../src/interfaces/http/event-stream/event-stream-source';
import { waitFor } from '../../support/wait-for';

const event = (n: number, kind = 'recorded'): SseMessage => ({ id: `p${n}`, event: kind, data: `{"n":${n}}` });
const caughtUp: SseMessage = { event: 'caught-up', data: '{}' };

/** A source of these messages, noting how many were taken from it and whether it was closed. */
function sourceOf(messages: readonly SseMessage[]) {
  const seen = { taken: 0, closed: false };
  const source: EventStreamSource = {
    async *[Symbol.asyncIterator]() {
      for (const message of messages) {
        seen.taken += 1;
        yield message;
      }
    },
    close: () => {
      seen.closed = true;
    },
  };
  return { source, seen };
}

/** Allows the first `allowed` charges, then refuses with Retry-After `retryAfter` until `allowed` grows. */
function account(allowed: number, retryAfter = 1) {
  const state = { allowed, charged: 0, refused: 0 };
  const charge = async (_accountId: string, cost: number): Promise<RateLimitDecision> => {
    expect(cost).toBe(1);
    if (state.charged < state.allowed) {
      state.charged += 1;
      return { allowed: true, remaining: state.allowed - state.charged, resetSeconds: retryAfter };
    }
    state.refused += 1;
    return { allowed: false, remaining: 0, resetSeconds: retryAfter };
  };
  return { charge, state };
}

async function collect(source: AsyncIterable<SseMessage>, count = Infinity): Promise<SseMessage[]> {
  const out: SseMessage[] = [];
  for await (const message of source) {
    out.push(message);
    if (out.length >= count) break;
  }
  return out;
}

it('charges one request before the 101st and the 201st event of the catch-up, none after caught-up', async () => {
  const messages = [
    ...Array.from({ length: 250 }, (_, n) => event(n + 1)),
    caughtUp,
    ...Array.from({ length: 150 }, (_, n) => event(251 + n, 'updated')),
  ];
  const { source } = sourceOf(messages);
  const { charge, state } = account(10);
  const waits: number[] = [];
  const sent = await collect(pacedCatchUp(source, charge, 'acc', new AbortController().signal, (s) => waits.push(s)));
  expect(sent).toEqual(messages);
  expect(state.charged).toBe(2);
  expect(waits).toEqual([]);
});

it('charges nothing for a catch-up of 100 events or fewer', async () => {
  const messages = [...Array.from({ length: 100 }, (_, n) => event(n + 1)), caughtUp];
  const { source } = sourceOf(messages);
  const { charge, state } = account(0);
  const sent = await collect(pacedCatchUp(source, charge, 'acc', new AbortController().signal, () => undefined));
  expect(sent).toHaveLength(101);
  expect(state.charged + state.refused).toBe(0);
});

it('holds the 101st event back while the quota is spent, and sends it once a charge is allowed', async () => {
  const messages = [...Array.from({ length: 101 }, (_, n) => event(n + 1)), caughtUp];
  const { source } = sourceOf(messages);
  // Refused until the test allows one more: each refusal waits its Retry-After (here 1 s) and asks again.
  const { charge, state } = account(0, 1);
  const waits: number[] = [];
  const received: SseMessage[] = [];
  const done = (async () => {
    for await (const message of pacedCatchUp(source, charge, 'acc', new AbortController().signal, (s) => waits.push(s)))
      received.push(message);
  })();
  await waitFor(() => waits.length === 1, { what: 'a wait' });
  expect(received).toHaveLength(100);
  state.allowed = 1;
  await done;
  expect(received).toEqual(messages);
  expect(waits).toEqual([1]);
  expect(state.refused).toBe(1);
});

it('stops waiting and ends when the stream ends during a wait, taking nothing more from its source', async () => {
  const messages = [...Array.from({ length: 300 }, (_, n) => event(n + 1)), caughtUp];
  const { source, seen } = sourceOf(messages);
  const { charge } = account(0, 60);
  const ended = new AbortController();
  const waits: number[] = [];
  const received: SseMessage[] = [];
  const done = (async () => {
    for await (const message of pacedCatchUp(source, charge, 'acc', ended.signal, (s) => waits.push(s)))
      received.push(message);
  })();
  await waitFor(() => waits.length === 1, { what: 'a wait' });
  ended.abort();
  // A minute's Retry-After: only the abort ends this wait within the test's time.
  await done;
  expect(received).toHaveLength(100);
  expect(seen.taken).toBe(101);
});

it('closes the source it paces', () => {
  const { source, seen } = sourceOf([]);
  pacedCatchUp(source, account(0).charge, 'acc', new AbortController().signal, () => undefined).close();
  expect(seen.closed).toBe(true);
});
