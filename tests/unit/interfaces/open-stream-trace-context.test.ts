// A stream's request has a server span as long as the stream, hours: the reads of each wake-up must
// not become its children (docs/decisions.md, "A delivery belongs to the writer's trace").
import { trace } from '@opentelemetry/api';
import type { EventStreamSource, SseMessage } from '../../../src/interfaces/http/event-stream/event-stream-source';
import { FreeSlots } from '../../support/http/free-slots';
import { oneStreamServed } from '../../support/http/one-stream-served';
import { startInMemoryTracing } from '../../support/telemetry/in-memory-tracing';
import { signal, waitFor } from '../../support/wait-for';

/** A source that reads once at the start, then once when woken: each read notes the span current then. */
function wakingSource() {
  const woken = signal();
  const closed = signal();
  const spansAtReads: Array<string | undefined> = [];
  const read = (id: string): IteratorResult<SseMessage> => {
    spansAtReads.push(trace.getActiveSpan()?.spanContext().spanId);
    return { done: false, value: { id, event: 'recorded', data: '{}' } };
  };
  let reads = 0;
  const source: EventStreamSource = {
    close: () => closed.resolve(),
    [Symbol.asyncIterator]: (): AsyncIterator<SseMessage> => ({
      next: async () => {
        reads += 1;
        if (reads === 1) return read('1');
        if (reads === 2) {
          await woken.promise;
          return read('2');
        }
        // Idle until the stream ends.
        await closed.promise;
        return { done: true, value: undefined };
      },
    }),
  };
  return { source, wake: () => woken.resolve(), spansAtReads };
}

it("reads a stream's changes outside its request's trace", async () => {
  const tracing = startInMemoryTracing();
  const { source, wake, spansAtReads } = wakingSource();
  const endings = { onUnavailable: () => undefined, isUnavailable: () => false, logError: () => undefined };
  const { answer, served, close } = await oneStreamServed(new FreeSlots(), source, endings, tracing.tracer);
  try {
    await waitFor(() => spansAtReads.length === 1, { what: 'the first read' });
    wake();
    await waitFor(() => spansAtReads.length === 2, { what: 'the read of the wake-up' });
    // The stream's request was traced: its server span was current where the stream was served.
    expect(answer().locals.traceIds).toEqual({
      trace_id: expect.any(String),
      span_id: expect.any(String),
      trace_flags: '01',
    });
    expect(spansAtReads).toEqual([undefined, undefined]);
  } finally {
    close();
    await served();
    await tracing.close();
  }
});

/** Slots whose renewals note the span current when they run. */
class WatchedSlots extends FreeSlots {
  readonly spansAtRenewals: Array<string | undefined> = [];
  override async renew(holders: readonly string[]): Promise<string[]> {
    this.spansAtRenewals.push(trace.getActiveSpan()?.spanContext().spanId);
    return super.renew(holders);
  }
}

it("renews the streams' leases outside the trace of the stream that started the renewals", async () => {
  const tracing = startInMemoryTracing();
  const slots = new WatchedSlots();
  const { source, wake } = wakingSource();
  const endings = { onUnavailable: () => undefined, isUnavailable: () => false, logError: () => undefined };
  // A lease of 300 ms: renewed every 100 ms.
  const { answer, served, close } = await oneStreamServed(slots, source, endings, tracing.tracer, { leaseMs: 300 });
  try {
    await waitFor(() => slots.spansAtRenewals.length >= 2, { what: 'two renewals' });
    expect(answer().locals.traceIds).toEqual({
      trace_id: expect.any(String),
      span_id: expect.any(String),
      trace_flags: '01',
    });
    expect(new Set(slots.spansAtRenewals)).toEqual(new Set([undefined]));
  } finally {
    // Past its read of the wake-up, the source ends when the stream closes it.
    wake();
    close();
    await served();
    await tracing.close();
  }
});

it("marks each wait of a stream's catch-up for its account's rate limit on the stream's request span", async () => {
  const tracing = startInMemoryTracing();
  const closed = signal();
  const source: EventStreamSource = {
    close: () => closed.resolve(),
    async *[Symbol.asyncIterator]() {
      for (let n = 1; n <= 101; n += 1) yield { id: String(n), event: 'recorded', data: '{}' };
      await closed.promise;
    },
  };
  // The quota spent: the 101st event waits a minute, unless the stream ends first.
  const refused = { quota: 100, charge: async () => ({ allowed: false, remaining: 0, resetSeconds: 60 }) };
  const endings = { onUnavailable: () => undefined, isUnavailable: () => false, logError: () => undefined };
  const { streams, answer, served, close } = await oneStreamServed(new FreeSlots(), source, endings, tracing.tracer, {
    accountLimit: refused,
  });
  try {
    await waitFor(() => streams.catchUpWaits === 1, { what: 'the catch-up waiting' });
    expect(answer().locals.catchUpWaits).toBe(1);
  } finally {
    close();
    await served();
  }
  await waitFor(() => tracing.named('GET /stream').length === 1, { what: "the stream's request span" });
  const [span] = tracing.named('GET /stream');
  expect(span?.events.map(({ name, attributes }) => ({ name, attributes }))).toEqual([
    { name: 'catch-up waited for the rate limit', attributes: { retry_after_s: 60 } },
  ]);
  await tracing.close();
});
